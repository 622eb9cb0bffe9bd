/* Exercise 1: index the rows by the pitch. This is step 01 (direct) with
 * the rows addressed as if each were `width` floats long: the classic pitch
 * bug. What to do, what to look for and the command: exercises/README.md.
 * As given, it reads the wrong pixels and writes outside the ROI: the check
 * fails. The sample launches it as it launches step 01: 32 x 8 threads per
 * block, one per output pixel. */
#define EXERCISE_BASE "direct"

__global__ void __launch_bounds__(DIRECT_TW * DIRECT_TH) blur_exercise(blur_args a)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;   /* ROI column */
    int y = blockIdx.y * blockDim.y + threadIdx.y;   /* ROI row */
    if (x >= a.width || y >= a.height) return;   /* the last blocks hang past the ROI */
    const int r = a.radius;
    const int xlo = max(x - r, 0), xhi = min(x + r, a.width - 1);
    const int ylo = max(y - r, 0), yhi = min(y + r, a.height - 1);
    float s = 0.0f;
    for (int yy = ylo; yy <= yhi; yy++) {
        /* TODO: ROI row yy is image row y0 + yy, which starts a.pitch bytes
         * after the one before it (a.pitch is in bytes, not floats). */
        const float *row = a.in + (size_t)(a.y0 + yy) * a.width + a.x0;
        for (int xx = xlo; xx <= xhi; xx++) s += row[xx];
    }
    /* TODO: the same for the output row y. */
    float *out = a.out + (size_t)(a.y0 + y) * a.width + a.x0;
    out[x] = s / (float)box_count(x, y, a.width, a.height, r);
}
