# tensorCoreGemm's unit tests need libm (fabs, ldexp, nextafterf).
tensorCoreGemm_TEST_LDLIBS := -lm
