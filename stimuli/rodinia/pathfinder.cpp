// Rodinia pathfinder (cuda/pathfinder/pathfinder.cu), dynproc_kernel: a dynamic-programming sweep
// over a rows x cols wall, advancing `pyramid_height` rows per launch inside one CTA of 256
// threads (BLOCK_SIZE) with a halo of one column per row on each side:
//   small_block_cols = 256 - iteration*2;  blkX = small_block_cols*bx - border;  xidx = blkX + tx;
//   if (0 <= xidx < cols) prev[tx] = gpuSrc[xidx];  __syncthreads();
//   for (i = 0; i < iteration; i++) {
//     computed = (i+1 <= tx <= 254-i) && isValid;
//     if (computed) result[tx] = min(prev[W], prev[tx], prev[E]) +
//     gpuWall[cols*(startStep+i)+xidx];
//     __syncthreads();  if (i == iteration-1) break;
//     if (computed) prev[tx] = result[tx];  __syncthreads();
//   }
//   if (computed) gpuResults[xidx] = result[tx];
// The host launches ceil((rows-1)/pyramid_height) kernels, swapping the two result rows.
#include <algorithm>
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

WorkloadInfo pathfinder_workload();

namespace {

constexpr std::int64_t kBlock = 256;  // BLOCK_SIZE
enum : std::uint16_t { kWall, kSrc, kDst };
constexpr Addr kPrev = 0, kResult = kBlock * 4;  // __shared__ int prev[256], result[256]

enum : std::uint32_t {
  kPcLdSrc = 0x00,
  kPcStsPrev = 0x08,
  kPcBar0 = 0x10,
  kPcCmpValid = 0x18,
  kPcLdsW = 0x20,
  kPcLdsUp = 0x28,
  kPcLdsE = 0x30,
  kPcLdWall = 0x38,
  kPcMin = 0x40,
  kPcStsRes = 0x48,
  kPcBar1 = 0x50,
  kPcLdsRes = 0x58,
  kPcStsPrev2 = 0x60,
  kPcBar2 = 0x68,
  kPcStOut = 0x70,
  kPcExit = 0x78
};

struct PathParams {
  std::int64_t cols = 0;
  std::int64_t iteration = 0;   // MIN(pyramid_height, rows-t-1)
  std::int64_t start_step = 0;  // t
  std::int64_t border = 0;      // pyramid_height*HALO
  Addr wall = 0, src = 0, dst = 0;
};

class PathStream final : public CoroutineStream {
 public:
  PathStream(const WarpContext& w, const PathParams& p) : w_(w), p_(p) {
    const std::int64_t small = kBlock - p.iteration * 2;
    blk_x_ = small * w.block_idx().x - p.border;
    const std::int64_t blk_x_max = blk_x_ + kBlock - 1;
    valid_min_ = blk_x_ < 0 ? -blk_x_ : 0;
    valid_max_ = blk_x_max > p.cols - 1 ? kBlock - 1 - (blk_x_max - p.cols + 1) : kBlock - 1;
    in_cols_ = w.lanes_where([&](unsigned l) { return xidx(l) >= 0 && xidx(l) < p.cols; });
  }

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    if (in_cols_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcLdSrc, in_cols_, kSrc,
                                [this](unsigned l) { return p_.src + 4 * xidx(l); }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcStsPrev, in_cols_,
                                        [this](unsigned l) { return kPrev + 4 * tx(l); }));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcBar0, all));
    for (i_ = 0; i_ < p_.iteration; ++i_) {
      computed_ = w_.lanes_where([this](unsigned l) {
        const std::int64_t t = tx(l);
        return t >= i_ + 1 && t <= kBlock - i_ - 2 && t >= valid_min_ && t <= valid_max_;
      });
      LOCSIM_CO_YIELD(emit_compute(in, kPcCmpValid, all, 3, kAluLatency));  // IN_RANGE tests
      if (computed_) {
        LOCSIM_CO_YIELD(emit_shared_load(in, kPcLdsW, computed_, [this](unsigned l) {
          return kPrev + 4 * std::max(tx(l) - 1, valid_min_);  // prev[W]
        }));
        LOCSIM_CO_YIELD(emit_shared_load(in, kPcLdsUp, computed_,
                                         [this](unsigned l) { return kPrev + 4 * tx(l); }));
        LOCSIM_CO_YIELD(emit_shared_load(in, kPcLdsE, computed_, [this](unsigned l) {
          return kPrev + 4 * std::min(tx(l) + 1, valid_max_);  // prev[E]
        }));
        LOCSIM_CO_YIELD(emit_load(in, kPcLdWall, computed_, kWall, [this](unsigned l) {
          return p_.wall + 4 * (p_.cols * (p_.start_step + i_) + xidx(l));
        }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcMin, computed_, 3, kAluLatency));  // 2 MIN, IADD
        LOCSIM_CO_YIELD(emit_shared_store(in, kPcStsRes, computed_,
                                          [this](unsigned l) { return kResult + 4 * tx(l); }));
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBar1, all));
      if (i_ == p_.iteration - 1) break;
      if (computed_) {
        LOCSIM_CO_YIELD(emit_shared_load(in, kPcLdsRes, computed_,
                                         [this](unsigned l) { return kResult + 4 * tx(l); }));
        LOCSIM_CO_YIELD(emit_shared_store(in, kPcStsPrev2, computed_,
                                          [this](unsigned l) { return kPrev + 4 * tx(l); }));
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBar2, all));
    }
    if (computed_) {
      LOCSIM_CO_YIELD(emit_store(in, kPcStOut, computed_, kDst,
                                 [this](unsigned l) { return p_.dst + 4 * xidx(l); }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, all));
    LOCSIM_CO_END;
  }

 private:
  std::int64_t tx(unsigned l) const { return w_.thread_idx(l).x; }
  std::int64_t xidx(unsigned l) const { return blk_x_ + tx(l); }

  WarpContext w_;
  PathParams p_;
  std::int64_t blk_x_ = 0, valid_min_ = 0, valid_max_ = 0;
  std::uint32_t in_cols_ = 0;
  std::int64_t i_ = 0;
  std::uint32_t computed_ = 0;
};

WorkloadParamDecls params() {
  return {{"cols", {"16000", "row length (columns of the wall)"}},
          {"rows", {"100", "rows of the wall (rows-1 dynamic-programming steps)"}},
          {"pyramid_height", {"20", "rows advanced per kernel launch (halo width)"}}};
}

std::unique_ptr<Workload> make_pathfinder(const WorkloadArgs& args) {
  WorkloadArgReader r("pathfinder", params(), args);
  const std::uint32_t cols = r.get_u32("cols", {1, 1u << 24, 1, ""});
  const std::uint32_t rows = r.get_u32("rows", {2, 1u << 16, 1, ""});
  const std::uint32_t ph =
      r.get_u32("pyramid_height", {1, 126, 1, "the block of 256 threads must keep a core"});
  const std::uint32_t small = kBlock - 2 * ph;  // smallBlockCol
  const std::uint32_t block_cols = (cols + small - 1) / small;
  DeviceAllocator alloc;
  const std::uint64_t wall_bytes = std::uint64_t{rows - 1} * cols * 4;
  const Addr wall = alloc.alloc(wall_bytes);
  const Addr res[2] = {alloc.alloc(std::uint64_t{cols} * 4), alloc.alloc(std::uint64_t{cols} * 4)};
  std::vector<std::unique_ptr<Kernel>> ks;
  int src = 1, dst = 0;
  for (std::uint32_t t = 0; t < rows - 1; t += ph) {
    std::swap(src, dst);
    PathParams p;
    p.cols = cols;
    p.iteration = std::min<std::int64_t>(ph, rows - t - 1);
    p.start_step = t;
    p.border = ph;
    p.wall = wall;
    p.src = res[src];
    p.dst = res[dst];
    // Every wall cell is read once (by the one CTA whose core covers it); the result rows are
    // read and written once per launch: NO-REUSE (seed 000 Table 2).
    std::vector<DataStructure> data = {
        {"gpuWall", wall, wall_bytes, 4, {no_reuse()}},
        {"gpuSrc", p.src, std::uint64_t{cols} * 4, 4, {no_reuse()}},
        {"gpuResults", p.dst, std::uint64_t{cols} * 4, 4, {no_reuse()}}};
    KernelShape shape;
    shape.name = "dynproc_kernel";
    shape.grid = {block_cols, 1, 1};
    shape.block = {kBlock, 1, 1};
    shape.regs_per_thread = 16;
    shape.shared_mem_bytes = 2 * kBlock * 4;
    ks.push_back(make_grid_kernel<PathStream>(std::move(shape), std::move(data), p));
  }
  return std::make_unique<KernelListWorkload>("pathfinder",
                                              "Rodinia pathfinder, " + std::to_string(cols) +
                                                  " cols x " + std::to_string(rows) +
                                                  " rows, pyramid height " + std::to_string(ph),
                                              std::move(ks));
}

}  // namespace

WorkloadInfo pathfinder_workload() {
  return {"pathfinder",
          "Rodinia",
          "dynamic-programming grid walk, pyramid of rows per launch in shared memory",
          "cols=16000, rows=100, pyramid_height=20",
          params(),
          make_pathfinder,
          // PAVER Table 2: 463 TBs = ceil(100000 / 216) columns per launch.
          {{"paver", {{"cols", "100000"}, {"rows", "100"}, {"pyramid_height", "20"}}}}};
}

}  // namespace locsim
