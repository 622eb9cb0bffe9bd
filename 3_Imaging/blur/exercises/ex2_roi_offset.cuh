/* Exercise 2: put the ROI where it is. This is step 01 (direct) with the
 * rows indexed by the pitch, but as if the region of interest started at
 * the image's first pixel: it forgets the ROI's origin (x0, y0). What to do,
 * what to look for and the command: exercises/README.md. As given, it
 * blurs and writes the wrong rectangle: the check fails. The sample
 * launches it as it launches step 01: 32 x 8 threads per block, one per
 * output pixel. */
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
        /* TODO: ROI pixel (xx, yy) is image pixel (x0 + xx, y0 + yy). */
        const float *row = (const float *)((const char *)a.in + (size_t)yy * a.pitch);
        for (int xx = xlo; xx <= xhi; xx++) s += row[xx];
    }
    /* TODO: the same for the output pixel (x, y). */
    float *out = (float *)((char *)a.out + (size_t)y * a.pitch);
    out[x] = s / (float)box_count(x, y, a.width, a.height, r);
}
