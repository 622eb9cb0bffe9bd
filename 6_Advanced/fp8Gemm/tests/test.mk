# fp8Gemm's unit tests need libm (fabs, ldexp, frexpf, rintf).
fp8Gemm_TEST_LDLIBS := -lm
