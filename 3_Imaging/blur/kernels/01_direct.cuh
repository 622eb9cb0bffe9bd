/* Step 01: direct, the classic form: one thread per output pixel, (2r+1)^2
 * loads from global memory, then the division by the edge rule's count.
 * Neighbouring threads load mostly the same pixels, so L1 absorbs most of
 * them; what is left is nine load instructions per pixel for radius 1.
 *
 * Measured (H200, 16384x16384 ROI, radius 1;
 * results/H200/blur.txt, commit 13f861f): 1113 GB/s, 26.3% of a cudaMemcpy of
 * the same bytes; 646 GB/s at radius 2
 * (results/H200/blur__radius_2.txt, commit 13f861f), 137 at radius 8
 * (results/H200/blur__radius_8.txt, commit 13f861f). */
#define DIRECT_TW 32   /* direct: a block is 32 columns (one warp) by 8 rows */
#define DIRECT_TH 8

__global__ void __launch_bounds__(DIRECT_TW * DIRECT_TH) blur_direct(blur_args a)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;   /* ROI column */
    int y = blockIdx.y * blockDim.y + threadIdx.y;   /* ROI row */
    if (x >= a.width || y >= a.height) return;   /* the last blocks hang past the ROI */
    const int r = a.radius;
    const int xlo = max(x - r, 0), xhi = min(x + r, a.width - 1);
    const int ylo = max(y - r, 0), yhi = min(y + r, a.height - 1);
    float s = 0.0f;
    for (int yy = ylo; yy <= yhi; yy++) {
        const float *row = in_row(&a, yy) + a.x0;
        for (int xx = xlo; xx <= xhi; xx++) s += row[xx];
    }
    out_row(&a, y)[a.x0 + x] = s / (float)box_count(x, y, a.width, a.height, r);
}
