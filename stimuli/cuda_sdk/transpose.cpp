// CUDA SDK transpose (samples/6_Advanced/transpose/transpose.cu), transposeNoBankConflicts:
// TILE_DIM = 32, BLOCK_ROWS = 8, grid (size_x/32, size_y/32), block (32, 8):
//   xIndex = bx*32 + tx;  yIndex = by*32 + ty;  index_in  = xIndex + yIndex*width;
//   xIndex = by*32 + tx;  yIndex = bx*32 + ty;  index_out = xIndex + yIndex*height;
//   for (i = 0; i < 32; i += 8) tile[ty+i][tx] = idata[index_in + i*width];
//   __syncthreads();
//   for (i = 0; i < 32; i += 8) odata[index_out + i*height] = tile[tx][ty+i];
// with __shared__ float tile[32][33] (the padding column removes the bank conflicts of the
// column read). Each element is read once and written once: NO-REUSE (seed 000 Table 2).
// The SDK times NUM_REPS launches of the kernel; `reps` models that loop.
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo transpose_workload();

namespace {

constexpr std::uint32_t kTile = 32, kBlockRows = 8, kPad = kTile + 1;
enum : std::uint16_t { kIn, kOut };

enum : std::uint32_t {
  kPcLd = 0x00,  // + 0x10 * r (unrolled), LDG then STS
  kPcBar = 0x40,
  kPcLds = 0x48,  // + 0x10 * r, LDS then STG
  kPcExit = 0x88
};

struct TrParams {
  std::uint32_t w = 0, h = 0;  // size_x (width), size_y (height)
  Addr in = 0, out = 0;
};

class TrStream final : public CoroutineStream {
 public:
  TrStream(const WarpContext& w, const TrParams& p) : w_(w), p_(p) {}

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    for (r_ = 0; r_ < kTile / kBlockRows; ++r_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcLd + 0x10 * r_, all, kIn, [this](unsigned l) {
        const std::uint64_t x = w_.block_idx().x * kTile + tx(l);
        const std::uint64_t y = w_.block_idx().y * kTile + ty(l) + kBlockRows * r_;
        return p_.in + 4 * (x + y * p_.w);
      }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcLd + 0x10 * r_ + 0x08, all, [this](unsigned l) {
        return Addr{4} * ((ty(l) + kBlockRows * r_) * kPad + tx(l));
      }));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcBar, all));
    for (r_ = 0; r_ < kTile / kBlockRows; ++r_) {
      LOCSIM_CO_YIELD(emit_shared_load(in, kPcLds + 0x10 * r_, all, [this](unsigned l) {
        return Addr{4} * (tx(l) * kPad + ty(l) + kBlockRows * r_);
      }));
      LOCSIM_CO_YIELD(emit_store(in, kPcLds + 0x10 * r_ + 0x08, all, kOut, [this](unsigned l) {
        const std::uint64_t x = w_.block_idx().y * kTile + tx(l);
        const std::uint64_t y = w_.block_idx().x * kTile + ty(l) + kBlockRows * r_;
        return p_.out + 4 * (x + y * p_.h);
      }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, all));
    LOCSIM_CO_END;
  }

 private:
  std::uint32_t tx(unsigned l) const { return w_.thread_idx(l).x; }
  std::uint32_t ty(unsigned l) const { return w_.thread_idx(l).y; }

  WarpContext w_;
  TrParams p_;
  std::uint32_t r_ = 0;  // unrolled i / BLOCK_ROWS
};

WorkloadParamDecls params() {
  return {{"size_x", {"1024", "matrix width in floats (a multiple of 32)"}},
          {"size_y", {"1024", "matrix height in floats (a multiple of 32)"}},
          {"reps", {"1", "kernel launches (the SDK's NUM_REPS timing loop)"}}};
}

std::unique_ptr<Workload> make_transpose(const WorkloadArgs& args) {
  WorkloadArgReader r("transpose", params(), args);
  TrParams p;
  p.w = r.get_u32("size_x", {kTile, 16384, kTile, ""});
  p.h = r.get_u32("size_y", {kTile, 16384, kTile, ""});
  const std::uint32_t reps = r.get_u32("reps", {1, 1000, 1, ""});
  const std::uint64_t bytes = std::uint64_t{p.w} * p.h * 4;
  DeviceAllocator alloc;
  p.in = alloc.alloc(bytes);
  p.out = alloc.alloc(bytes);
  std::vector<std::unique_ptr<Kernel>> ks;
  for (std::uint32_t i = 0; i < reps; ++i) {
    // Each element is read once and written once per launch: NO-REUSE (seed 000 Table 2).
    std::vector<DataStructure> data = {{"idata", p.in, bytes, 4, {no_reuse()}},
                                       {"odata", p.out, bytes, 4, {no_reuse()}}};
    KernelShape shape;
    shape.name = "transposeNoBankConflicts";
    shape.grid = {p.w / kTile, p.h / kTile, 1};
    shape.block = {kTile, kBlockRows, 1};
    shape.regs_per_thread = 10;
    shape.shared_mem_bytes = kTile * kPad * 4;
    ks.push_back(make_grid_kernel<TrStream>(std::move(shape), std::move(data), p));
  }
  return std::make_unique<KernelListWorkload>(
      "transpose",
      "CUDA SDK transposeNoBankConflicts, " + std::to_string(p.w) + "x" + std::to_string(p.h) +
          " floats, " + std::to_string(reps) + " launch(es)",
      std::move(ks));
}

}  // namespace

WorkloadInfo transpose_workload() {
  return {"transpose",
          "CUDA SDK",
          "matrix transpose through a padded 32x33 shared tile (transposeNoBankConflicts)",
          "1024x1024 floats, 1 launch",
          params(),
          make_transpose};
}

}  // namespace locsim
