# The shared reduction reference lives in 0_Simple/reduction.
threadFenceReduction_TEST_CFLAGS := -I0_Simple/reduction
