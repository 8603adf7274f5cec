// CUDA SDK matrixMul (samples/0_Simple/matrixMul/matrixMul.cu), MatrixMulCUDA<BLOCK_SIZE = 16>
// on square n x n matrices, C = A * B, grid (n/16, n/16), block (16, 16):
//   for (a = wA*16*by, b = 16*bx; a <= aBegin + wA - 1; a += 16, b += 16*wB) {
//     As[ty][tx] = A[a + wA*ty + tx];  Bs[ty][tx] = B[b + wB*ty + tx];  __syncthreads();
//     #pragma unroll
//     for (k = 0; k < 16; ++k) Csub += As[ty][k] * Bs[k][tx];
//     __syncthreads();
//   }
//   C[wB*16*by + 16*bx + wB*ty + tx] = Csub;
// CTAs of one block-row read the same A tiles and CTAs of one block-column the same B tiles
// (inter-CTA reuse); each warp covers two rows ty = 2w, 2w+1 of 64 bytes each.
#include <memory>
#include <string>

#include "stimuli/builtin_workloads.h"
#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

namespace {

constexpr std::uint32_t kBlockSize = 16;  // BLOCK_SIZE template argument
enum : std::uint16_t { kA, kB, kC };      // indices into Kernel::data()
// Shared memory layout: As then Bs, 16 x 16 floats each.
constexpr Addr kAs = 0;
constexpr Addr kBs = kBlockSize * kBlockSize * 4;

// Static instruction addresses; the k loop is fully unrolled, so each k has its own three.
enum : std::uint32_t {
  kPcLdA = 0x00,
  kPcLdB = 0x08,
  kPcStsA = 0x10,
  kPcStsB = 0x18,
  kPcBar1 = 0x20,
  kPcInner = 0x28,  // + 0x18 * k: LDS As, LDS Bs, FFMA
  kPcBar2 = kPcInner + 0x18 * kBlockSize,
  kPcStC = kPcBar2 + 0x08,
  kPcExit = kPcStC + 0x08
};

struct MatMulParams {
  std::uint32_t n = 0;  // wA = wB = hA
  Addr a = 0, b = 0, c = 0;
};

class MatMulStream final : public CoroutineStream {
 public:
  MatMulStream(const WarpContext& w, const MatMulParams& p) : w_(w), p_(p) {}

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();  // n is a multiple of 16: no partial tiles
    LOCSIM_CO_BEGIN;
    for (t_ = 0; t_ < p_.n / kBlockSize; ++t_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcLdA, all, kA, [this](unsigned l) {  // A[row][16t + tx]
        return p_.a + 4 * (row(l) * p_.n + t_ * kBlockSize + w_.thread_idx(l).x);
      }));
      LOCSIM_CO_YIELD(emit_load(in, kPcLdB, all, kB, [this](unsigned l) {  // B[16t + ty][col]
        return p_.b + 4 * ((std::uint64_t{t_} * kBlockSize + w_.thread_idx(l).y) * p_.n + col(l));
      }));
      LOCSIM_CO_YIELD(
          emit_shared_store(in, kPcStsA, all, [this](unsigned l) { return kAs + tile(l); }));
      LOCSIM_CO_YIELD(
          emit_shared_store(in, kPcStsB, all, [this](unsigned l) { return kBs + tile(l); }));
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBar1, all));
      for (k_ = 0; k_ < kBlockSize; ++k_) {
        LOCSIM_CO_YIELD(emit_shared_load(in, kPcInner + 0x18 * k_, all, [this](unsigned l) {
          return kAs + 4 * (w_.thread_idx(l).y * kBlockSize + k_);  // As[ty][k]: broadcast
        }));
        LOCSIM_CO_YIELD(emit_shared_load(in, kPcInner + 0x18 * k_ + 0x08, all, [this](unsigned l) {
          return kBs + 4 * (k_ * kBlockSize + w_.thread_idx(l).x);  // Bs[k][tx]
        }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcInner + 0x18 * k_ + 0x10, all, 1, kAluLatency));
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBar2, all));
    }
    LOCSIM_CO_YIELD(emit_store(in, kPcStC, all, kC,
                               [this](unsigned l) { return p_.c + 4 * (row(l) * p_.n + col(l)); }));
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, all));
    LOCSIM_CO_END;
  }

 private:
  std::uint64_t row(unsigned l) const { return w_.global_y(l); }  // 16*by + ty
  std::uint64_t col(unsigned l) const { return w_.global_x(l); }  // 16*bx + tx
  Addr tile(unsigned l) const {  // [ty][tx] within a 16 x 16 float tile
    return 4 * (w_.thread_idx(l).y * kBlockSize + w_.thread_idx(l).x);
  }

  WarpContext w_;
  MatMulParams p_;
  std::uint32_t t_ = 0, k_ = 0;  // tile and unrolled-k counters
};

WorkloadParamDecls params() {
  return {{"n", {"256", "matrix dimension (n x n floats; a multiple of 16)"}}};
}

std::unique_ptr<Workload> make_matmul(const WorkloadArgs& args) {
  WorkloadArgReader r("matmul", params(), args);
  MatMulParams p;
  p.n = r.get_u32("n", {kBlockSize, 8192, kBlockSize, "matrixMul tiles are 16x16"});
  const std::uint64_t bytes = std::uint64_t{p.n} * p.n * 4;
  DeviceAllocator alloc;
  p.a = alloc.alloc(bytes);
  p.b = alloc.alloc(bytes);
  p.c = alloc.alloc(bytes);
  const std::uint32_t g = p.n / kBlockSize;
  // A's 16-row band is read by every CTA of a block row, B's 16-column band by every CTA of a
  // block column (INTER-THREAD, COACCESSED, REGULAR, seed 000 §3.3); C is written once.
  std::vector<DataStructure> data = {
      {"A",
       p.a,
       bytes,
       4,
       {inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {p.n, kBlockSize, 1},
                     {g, 1, 1}, {0, 1, 0}, kBlockSize)}},
      {"B",
       p.b,
       bytes,
       4,
       {inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {kBlockSize, p.n, 1},
                     {1, g, 1}, {1, 0, 0}, std::uint64_t{kBlockSize} * p.n)},
       {p.n, p.n, 1}},
      {"C", p.c, bytes, 4, {no_reuse()}}};
  KernelShape shape;
  shape.name = "MatrixMulCUDA";
  shape.grid = {g, g, 1};
  shape.block = {kBlockSize, kBlockSize, 1};
  shape.regs_per_thread = 24;
  shape.shared_mem_bytes = 2 * kBlockSize * kBlockSize * 4;  // As and Bs
  std::vector<std::unique_ptr<Kernel>> ks;
  ks.push_back(make_grid_kernel<MatMulStream>(std::move(shape), std::move(data), p));
  return std::make_unique<KernelListWorkload>(
      "matmul",
      "CUDA SDK matrixMul, " + std::to_string(p.n) + "x" + std::to_string(p.n) + " floats",
      std::move(ks));
}

}  // namespace

WorkloadInfo matmul_workload() {
  return {"matmul",
          "CUDA SDK",
          "tiled matrix multiply C = A*B, 16x16 shared-memory tiles",
          "256x256 floats",
          params(),
          make_matmul,
          // PAVER Table 2 / §3.3: 169 TBs = 13x13 tiles of a 208x208 matrix.
          {{"paver", {{"n", "208"}}}}};
}

}  // namespace locsim
