// Rodinia hotspot (cuda/hotspot/hotspot.cu), calculate_temp: a thermal stencil on a square
// grid_rows x grid_cols chip, advancing `iteration` (the pyramid height) time steps per launch in
// 16x16 shared-memory tiles that overlap by a halo of pyramid_height cells on each side:
//   small_block_rows = 16 - iteration*2;  (cols alike)
//   blkY = small_block_rows*by - border_rows;  blkX = small_block_cols*bx - border_cols;
//   yidx = blkY + ty;  xidx = blkX + tx;  index = grid_cols*yidx + xidx;
//   if (yidx, xidx inside the grid) { temp_on_cuda[ty][tx] = temp_src[index];
//                                     power_on_cuda[ty][tx] = power[index]; }
//   __syncthreads();
//   N/S/W/E = ty-1/ty+1/tx-1/tx+1 clamped to [validYmin, validYmax] / [validXmin, validXmax]
//   for (i = 0; i < iteration; i++) {
//     computed = tx, ty in [i+1, 14-i] and inside the valid range;
//     if (computed) temp_t[ty][tx] = f(temp_on_cuda[ty][tx], power_on_cuda[ty][tx],
//                                      temp_on_cuda[S][tx], [N][tx], [ty][E], [ty][W]);
//     __syncthreads();  if (i == iteration-1) break;
//     if (computed) temp_on_cuda[ty][tx] = temp_t[ty][tx];  __syncthreads();
//   }
//   if (computed) temp_dst[index] = temp_t[ty][tx];
// The host (compute_tran_temp) launches ceil(sim_time / pyramid_height) kernels of
// ceil(grid/(16 - 2*pyramid_height))^2 CTAs, passing MIN(pyramid_height, sim_time - t) as
// iteration and swapping the two temperature buffers.
#include <algorithm>
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo hotspot_workload();

namespace {

constexpr std::int64_t kBlock = 16;  // BLOCK_SIZE
enum : std::uint16_t { kPower, kTempSrc, kTempDst };
// __shared__ float temp_on_cuda[16][16], power_on_cuda[16][16], temp_t[16][16]
constexpr Addr kTemp = 0, kPow = kBlock * kBlock * 4, kTempT = 2 * kBlock * kBlock * 4;

enum : std::uint32_t {
  kPcIndex = 0x00,
  kPcLdTemp = 0x08,
  kPcLdPower = 0x10,
  kPcStsTemp = 0x18,
  kPcStsPower = 0x20,
  kPcBar0 = 0x28,
  kPcRange = 0x30,
  kPcLdsC = 0x38,
  kPcLdsP = 0x40,
  kPcLdsS = 0x48,
  kPcLdsN = 0x50,
  kPcLdsE = 0x58,
  kPcLdsW = 0x60,
  kPcMath = 0x68,
  kPcStsT = 0x70,
  kPcBar1 = 0x78,
  kPcLdsT = 0x80,
  kPcStsBack = 0x88,
  kPcBar2 = 0x90,
  kPcLdsOut = 0x98,
  kPcStOut = 0xa0,
  kPcExit = 0xa8
};

struct HotspotParams {
  std::int64_t grid = 0;       // grid_rows = grid_cols
  std::int64_t iteration = 0;  // MIN(pyramid_height, sim_time - t)
  std::int64_t border = 0;     // pyramid_height * EXPAND_RATE / 2
  Addr power = 0, src = 0, dst = 0;
};

class HotspotStream final : public CoroutineStream {
 public:
  HotspotStream(const WarpContext& w, const HotspotParams& p) : w_(w), p_(p) {
    const std::int64_t small = kBlock - p.iteration * 2;
    blk_y_ = small * w.block_idx().y - p.border;
    blk_x_ = small * w.block_idx().x - p.border;
    const std::int64_t blk_y_max = blk_y_ + kBlock - 1, blk_x_max = blk_x_ + kBlock - 1;
    vy_min_ = blk_y_ < 0 ? -blk_y_ : 0;
    vy_max_ = blk_y_max > p.grid - 1 ? kBlock - 1 - (blk_y_max - p.grid + 1) : kBlock - 1;
    vx_min_ = blk_x_ < 0 ? -blk_x_ : 0;
    vx_max_ = blk_x_max > p.grid - 1 ? kBlock - 1 - (blk_x_max - p.grid + 1) : kBlock - 1;
    in_grid_ = w.lanes_where(
        [&](unsigned l) { return y(l) >= 0 && y(l) < p.grid && x(l) >= 0 && x(l) < p.grid; });
  }

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    LOCSIM_CO_YIELD(emit_compute(in, kPcIndex, all, 8, kAluLatency));  // blkY, blkX, index
    if (in_grid_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcLdTemp, in_grid_, kTempSrc,
                                [this](unsigned l) { return p_.src + 4 * index(l); }));
      LOCSIM_CO_YIELD(emit_load(in, kPcLdPower, in_grid_, kPower,
                                [this](unsigned l) { return p_.power + 4 * index(l); }));
      LOCSIM_CO_YIELD(emit_shared_store(
          in, kPcStsTemp, in_grid_, [this](unsigned l) { return kTemp + sh(l, ty(l), tx(l)); }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcStsPower, in_grid_,
                                        [this](unsigned l) { return kPow + sh(l, ty(l), tx(l)); }));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcBar0, all));
    for (i_ = 0; i_ < p_.iteration; ++i_) {
      computed_ = w_.lanes_where([this](unsigned l) {
        const std::int64_t a = tx(l), b = ty(l), lo = i_ + 1, hi = kBlock - i_ - 2;
        return a >= lo && a <= hi && b >= lo && b <= hi && a >= vx_min_ && a <= vx_max_ &&
               b >= vy_min_ && b <= vy_max_;
      });
      LOCSIM_CO_YIELD(emit_compute(in, kPcRange, all, 4, kAluLatency));  // IN_RANGE tests
      if (computed_) {
        LOCSIM_CO_YIELD(emit_shared_load(
            in, kPcLdsC, computed_, [this](unsigned l) { return kTemp + sh(l, ty(l), tx(l)); }));
        LOCSIM_CO_YIELD(emit_shared_load(
            in, kPcLdsP, computed_, [this](unsigned l) { return kPow + sh(l, ty(l), tx(l)); }));
        LOCSIM_CO_YIELD(emit_shared_load(in, kPcLdsS, computed_, [this](unsigned l) {
          return kTemp + sh(l, std::min(ty(l) + 1, vy_max_), tx(l));
        }));
        LOCSIM_CO_YIELD(emit_shared_load(in, kPcLdsN, computed_, [this](unsigned l) {
          return kTemp + sh(l, std::max(ty(l) - 1, vy_min_), tx(l));
        }));
        LOCSIM_CO_YIELD(emit_shared_load(in, kPcLdsE, computed_, [this](unsigned l) {
          return kTemp + sh(l, ty(l), std::min(tx(l) + 1, vx_max_));
        }));
        LOCSIM_CO_YIELD(emit_shared_load(in, kPcLdsW, computed_, [this](unsigned l) {
          return kTemp + sh(l, ty(l), std::max(tx(l) - 1, vx_min_));
        }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcMath, computed_, 10, kAluLatency));  // FFMA chain
        LOCSIM_CO_YIELD(emit_shared_store(
            in, kPcStsT, computed_, [this](unsigned l) { return kTempT + sh(l, ty(l), tx(l)); }));
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBar1, all));
      if (i_ == p_.iteration - 1) break;
      if (computed_) {
        LOCSIM_CO_YIELD(emit_shared_load(
            in, kPcLdsT, computed_, [this](unsigned l) { return kTempT + sh(l, ty(l), tx(l)); }));
        LOCSIM_CO_YIELD(emit_shared_store(
            in, kPcStsBack, computed_, [this](unsigned l) { return kTemp + sh(l, ty(l), tx(l)); }));
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBar2, all));
    }
    if (computed_) {
      LOCSIM_CO_YIELD(emit_shared_load(
          in, kPcLdsOut, computed_, [this](unsigned l) { return kTempT + sh(l, ty(l), tx(l)); }));
      LOCSIM_CO_YIELD(emit_store(in, kPcStOut, computed_, kTempDst,
                                 [this](unsigned l) { return p_.dst + 4 * index(l); }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, all));
    LOCSIM_CO_END;
  }

 private:
  std::int64_t tx(unsigned l) const { return w_.thread_idx(l).x; }
  std::int64_t ty(unsigned l) const { return w_.thread_idx(l).y; }
  std::int64_t y(unsigned l) const { return blk_y_ + ty(l); }
  std::int64_t x(unsigned l) const { return blk_x_ + tx(l); }
  std::int64_t index(unsigned l) const { return p_.grid * y(l) + x(l); }
  static Addr sh(unsigned, std::int64_t row, std::int64_t col) {
    return static_cast<Addr>(4 * (row * kBlock + col));
  }

  WarpContext w_;
  HotspotParams p_;
  std::int64_t blk_y_ = 0, blk_x_ = 0, vy_min_ = 0, vy_max_ = 0, vx_min_ = 0, vx_max_ = 0;
  std::uint32_t in_grid_ = 0;
  std::int64_t i_ = 0;
  std::uint32_t computed_ = 0;
};

WorkloadParamDecls params() {
  return {{"grid", {"512", "chip grid side (grid_rows = grid_cols)"}},
          {"pyramid_height", {"2", "time steps per launch (halo width of the 16x16 tiles)"}},
          {"sim_time", {"2", "total time steps (launches = ceil(sim_time / pyramid_height))"}}};
}

std::unique_ptr<Workload> make_hotspot(const WorkloadArgs& args) {
  WorkloadArgReader r("hotspot", params(), args);
  const std::uint32_t grid = r.get_u32("grid", {1, 16384, 1, ""});
  const std::uint32_t ph =
      r.get_u32("pyramid_height", {1, 7, 1, "a 16x16 tile must keep a core of 2 cells"});
  const std::uint32_t sim_time = r.get_u32("sim_time", {1, 100000, 1, ""});
  const std::uint32_t small = kBlock - 2 * ph;  // smallBlockCol = smallBlockRow
  const std::uint32_t blocks = (grid + small - 1) / small;
  const std::uint64_t bytes = std::uint64_t{grid} * grid * 4;
  DeviceAllocator alloc;
  const Addr power = alloc.alloc(bytes);
  const Addr temp[2] = {alloc.alloc(bytes), alloc.alloc(bytes)};
  std::vector<std::unique_ptr<Kernel>> ks;
  int src = 1, dst = 0;
  for (std::uint32_t t = 0; t < sim_time; t += ph) {
    std::swap(src, dst);
    HotspotParams p;
    p.grid = grid;
    p.iteration = std::min<std::int64_t>(ph, sim_time - t);
    p.border = ph;
    p.power = power;
    p.src = temp[src];
    p.dst = temp[dst];
    // power and temp_src: INTER-THREAD (NEARBY, REGULAR) -- each CTA's 16x16 tile overlaps its
    // neighbours' by the pyramid_height halo, so adjacent CTAs re-read the same rows.
    // temp_dst: NO-REUSE -- every cell is written once, by the one CTA whose core covers it.
    const auto nearby = inter_thread(SharingType::Nearby, AccessPattern::Regular, {16, 16, 1},
                                     {1, 1, 1}, {1, 1, 0}, grid);
    std::vector<DataStructure> data = {{"power", power, bytes, 4, {nearby}, {grid, grid, 1}},
                                       {"temp_src", p.src, bytes, 4, {nearby}, {grid, grid, 1}},
                                       {"temp_dst", p.dst, bytes, 4, {no_reuse()}}};
    KernelShape shape;
    shape.name = "calculate_temp";
    shape.grid = {blocks, blocks, 1};
    shape.block = {kBlock, kBlock, 1};
    shape.regs_per_thread = 24;
    shape.shared_mem_bytes = 3 * kBlock * kBlock * 4;
    ks.push_back(make_grid_kernel<HotspotStream>(std::move(shape), std::move(data), p));
  }
  return std::make_unique<KernelListWorkload>("hotspot",
                                              "Rodinia hotspot, " + std::to_string(grid) + "x" +
                                                  std::to_string(grid) + " grid, pyramid height " +
                                                  std::to_string(ph) + ", " +
                                                  std::to_string(sim_time) + " steps",
                                              std::move(ks));
}

}  // namespace

WorkloadInfo hotspot_workload() {
  return {"hotspot",
          "Rodinia",
          "thermal stencil, pyramid of time steps per launch in 16x16 shared-memory tiles",
          "grid=512, pyramid_height=2, sim_time=2",
          params(),
          make_hotspot,
          // PAVER Table 2: 1849 TBs = 43x43 (the defaults).
          {{"paver", {{"grid", "512"}, {"pyramid_height", "2"}}}}};
}

}  // namespace locsim
