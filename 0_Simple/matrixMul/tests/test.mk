# matrixMul's unit tests need libm (sqrt, ldexp in mm_host.c).
matrixMul_TEST_LDLIBS := -lm
