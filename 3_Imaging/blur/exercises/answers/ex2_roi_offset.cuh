/* Exercise 2, a reference answer: ROI row yy is image row y0 + yy, ROI
 * column xx is image column x0 + xx. Step 01 does the same with in_row()
 * and out_row() (kernels/00_roi.cuh) and a.x0. */
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
        const float *row = (const float *)((const char *)a.in + (size_t)(a.y0 + yy) * a.pitch) + a.x0;
        for (int xx = xlo; xx <= xhi; xx++) s += row[xx];
    }
    float *out = (float *)((char *)a.out + (size_t)(a.y0 + y) * a.pitch) + a.x0;
    out[x] = s / (float)box_count(x, y, a.width, a.height, r);
}
