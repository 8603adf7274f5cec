// CUDA SDK FDTD3d (samples/5_Simulations/FDTD3d/inc/FDTD3dGPUKernel.cuh), FiniteDifferencesKernel:
// an order-8 (RADIUS = 4) 3D stencil, block (k_blockDimX = 32, k_blockDimMaxY = 16), grid
// (dimx/32, dimy/16); each thread owns an (x, y) column and walks the z planes, keeping the z
// neighbours in registers (behind[4], current, infront[4]) and the current xy-plane of its block
// plus a RADIUS halo in __shared__ float tile[16+8][32+8]:
//   stride_y = dimx + 2R;  stride_z = stride_y*(dimy + 2R);
//   inputIndex = R*stride_y + R + gtidy*stride_y + gtidx;          // plane 0 of the padded volume
//   behind[2..0] = planes 0..2;  current = plane 3;  infront[0..3] = planes 4..7;
//   for (iz = 0; iz < dimz; iz++) {
//     shift the registers;  infront[3] = input[plane iz+8];  outputIndex at plane iz+4;
//     __syncthreads();
//     if (ty < R) { tile[ty][tx+R] = input[out - R*stride_y]; tile[ty+16+R][tx+R] = input[out +
//     16*stride_y]; } if (tx < R) { tile[ty+R][tx] = input[out - R];          tile[ty+R][tx+32+R] =
//     input[out + 32]; } tile[ty+R][tx+R] = current;
//     __syncthreads();
//     value = stencil[0]*current + sum_i stencil[i]*(infront[i-1] + behind[i-1] + 4 tile reads);
//     output[outputIndex] = value;
//   }
// The host runs `timesteps` launches, swapping input and output.
#include <memory>
#include <string>
#include <utility>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo fdtd3d_workload();

namespace {

constexpr std::uint32_t kR = 4, kBx = 32, kBy = 16, kTileW = kBx + 2 * kR;
enum : std::uint16_t { kIn, kOut };

enum : std::uint32_t {
  kPcPre = 0x00,  // + 8*p, p = 0..7: preload planes 0..7
  kPcShift = 0x40,
  kPcLdFront = 0x48,
  kPcBar1 = 0x50,
  kPcLdUp = 0x58,
  kPcStsUp = 0x60,
  kPcLdDn = 0x68,
  kPcStsDn = 0x70,
  kPcLdL = 0x78,
  kPcStsL = 0x80,
  kPcLdR = 0x88,
  kPcStsR = 0x90,
  kPcStsC = 0x98,
  kPcBar2 = 0xa0,
  kPcLds = 0xa8,  // + 0x28*(i-1) + 8*d: four tile reads, then FMAs
  kPcStOut = 0xa8 + 0x28 * kR,
  kPcExit = kPcStOut + 0x08
};

struct FdParams {
  std::uint32_t dimx = 0, dimy = 0, dimz = 0;
  Addr in = 0, out = 0;
};

class FdStream final : public CoroutineStream {
 public:
  FdStream(const WarpContext& w, const FdParams& p) : w_(w), p_(p) {
    sy_ = p.dimx + 2 * kR;
    sz_ = sy_ * (p.dimy + 2 * kR);
    top_ = w.thread_idx(0).y < kR ? w.live_mask() : 0u;
    side_ = w.lanes_where([&](unsigned l) { return w.thread_idx(l).x < kR; });
  }

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    for (i_ = 0; i_ < 2 * kR; ++i_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcPre + 8 * i_, all, kIn,
                                [this](unsigned l) { return g(p_.in, l, i_, 0); }));
    }
    for (iz_ = 0; iz_ < p_.dimz; ++iz_) {
      LOCSIM_CO_YIELD(emit_compute(in, kPcShift, all, 2, kAluLatency));  // index updates
      LOCSIM_CO_YIELD(emit_load(in, kPcLdFront, all, kIn,
                                [this](unsigned l) { return g(p_.in, l, iz_ + 2 * kR, 0); }));
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBar1, all));
      if (top_) {
        LOCSIM_CO_YIELD(emit_load(in, kPcLdUp, top_, kIn, [this](unsigned l) {
          return g(p_.in, l, iz_ + kR, -std::int64_t{kR} * sy_);
        }));
        LOCSIM_CO_YIELD(emit_shared_store(in, kPcStsUp, top_,
                                          [this](unsigned l) { return sh(ty(l), tx(l) + kR); }));
        LOCSIM_CO_YIELD(emit_load(in, kPcLdDn, top_, kIn, [this](unsigned l) {
          return g(p_.in, l, iz_ + kR, std::int64_t{kBy} * sy_);
        }));
        LOCSIM_CO_YIELD(emit_shared_store(
            in, kPcStsDn, top_, [this](unsigned l) { return sh(ty(l) + kBy + kR, tx(l) + kR); }));
      }
      LOCSIM_CO_YIELD(emit_load(in, kPcLdL, side_, kIn, [this](unsigned l) {
        return g(p_.in, l, iz_ + kR, -std::int64_t{kR});
      }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcStsL, side_,
                                        [this](unsigned l) { return sh(ty(l) + kR, tx(l)); }));
      LOCSIM_CO_YIELD(emit_load(in, kPcLdR, side_, kIn,
                                [this](unsigned l) { return g(p_.in, l, iz_ + kR, kBx); }));
      LOCSIM_CO_YIELD(emit_shared_store(
          in, kPcStsR, side_, [this](unsigned l) { return sh(ty(l) + kR, tx(l) + kBx + kR); }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcStsC, all,
                                        [this](unsigned l) { return sh(ty(l) + kR, tx(l) + kR); }));
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBar2, all));
      for (i_ = 1; i_ <= kR; ++i_) {
        for (d_ = 0; d_ < 4; ++d_) {
          LOCSIM_CO_YIELD(
              emit_shared_load(in, kPcLds + 0x28 * (i_ - 1) + 8 * d_, all, [this](unsigned l) {
                const std::int64_t r = ty(l) + kR, c = tx(l) + kR, i = i_;
                static constexpr std::int64_t dr[4] = {-1, 1, 0, 0}, dc[4] = {0, 0, -1, 1};
                return sh(r + dr[d_] * i, c + dc[d_] * i);
              }));
        }
        LOCSIM_CO_YIELD(emit_compute(in, kPcLds + 0x28 * (i_ - 1) + 0x20, all, 6, kAluLatency));
      }
      LOCSIM_CO_YIELD(emit_store(in, kPcStOut, all, kOut,
                                 [this](unsigned l) { return g(p_.out, l, iz_ + kR, 0); }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, all));
    LOCSIM_CO_END;
  }

 private:
  std::int64_t tx(unsigned l) const { return w_.thread_idx(l).x; }
  std::int64_t ty(unsigned l) const { return w_.thread_idx(l).y; }
  // Element (gtidx, gtidy) of padded plane `plane`, plus `off` elements.
  Addr g(Addr base, unsigned l, std::int64_t plane, std::int64_t off) const {
    const std::int64_t idx = kR * sy_ + kR + static_cast<std::int64_t>(w_.global_y(l)) * sy_ +
                             static_cast<std::int64_t>(w_.global_x(l)) + plane * sz_ + off;
    return base + static_cast<Addr>(4 * idx);
  }
  static Addr sh(std::int64_t row, std::int64_t col) {
    return static_cast<Addr>(4 * (row * kTileW + col));
  }

  WarpContext w_;
  FdParams p_;
  std::int64_t sy_ = 0, sz_ = 0;
  std::uint32_t top_ = 0, side_ = 0;
  std::uint32_t iz_ = 0, i_ = 0, d_ = 0;
};

WorkloadParamDecls params() {
  return {{"dimx", {"64", "volume width (a multiple of 32; the SDK default is 376)"}},
          {"dimy", {"64", "volume height (a multiple of 16)"}},
          {"dimz", {"32", "volume depth (z planes each thread walks)"}},
          {"timesteps", {"2", "kernel launches, input and output swapped (the SDK uses 5)"}}};
}

std::unique_ptr<Workload> make_fdtd3d(const WorkloadArgs& args) {
  WorkloadArgReader r("fdtd3d", params(), args);
  FdParams p;
  p.dimx = r.get_u32("dimx", {kBx, 4096, kBx, "blocks are 32 wide"});
  p.dimy = r.get_u32("dimy", {kBy, 4096, kBy, "blocks are 16 high"});
  p.dimz = r.get_u32("dimz", {1, 4096, 1, ""});
  const std::uint32_t steps = r.get_u32("timesteps", {1, 100, 1, ""});
  const std::uint64_t bytes =
      std::uint64_t{p.dimx + 2 * kR} * (p.dimy + 2 * kR) * (p.dimz + 2 * kR) * 4;
  DeviceAllocator alloc;
  Addr a = alloc.alloc(bytes), b = alloc.alloc(bytes);
  std::vector<std::unique_ptr<Kernel>> ks;
  for (std::uint32_t t = 0; t < steps; ++t) {
    p.in = a;
    p.out = b;
    // input: each CTA reads its 32x16 column block plus a RADIUS halo that belongs to the four
    // neighbouring CTAs (INTER-THREAD, NEARBY, REGULAR; D-Tile = block + halo, one CTA per
    // C-Tile, stepping 32 x 16 per CTA). output: written once (NO-REUSE).
    std::vector<DataStructure> data = {
        {"input",
         a,
         bytes,
         4,
         {inter_thread(SharingType::Nearby, AccessPattern::Regular,
                       {kBx + 2 * kR, kBy + 2 * kR, p.dimz + 2 * kR}, {1, 1, 1}, {kBx, kBy, 0})}},
        {"output", b, bytes, 4, {no_reuse()}}};
    KernelShape shape;
    shape.name = "FiniteDifferencesKernel";
    shape.grid = {p.dimx / kBx, p.dimy / kBy, 1};
    shape.block = {kBx, kBy, 1};
    shape.regs_per_thread = 32;
    shape.shared_mem_bytes = (kBy + 2 * kR) * kTileW * 4;
    ks.push_back(make_grid_kernel<FdStream>(std::move(shape), std::move(data), p));
    std::swap(a, b);
  }
  return std::make_unique<KernelListWorkload>(
      "fdtd3d",
      "CUDA SDK FDTD3d, radius 4, " + std::to_string(p.dimx) + "x" + std::to_string(p.dimy) + "x" +
          std::to_string(p.dimz) + ", " + std::to_string(steps) + " timestep(s)",
      std::move(ks));
}

}  // namespace

WorkloadInfo fdtd3d_workload() {
  return {"fdtd3d",
          "CUDA SDK",
          "3D finite-difference stencil (radius 4), shared xy-plane tile walked along z",
          "64x64x32, 2 timesteps",
          params(),
          make_fdtd3d};
}

}  // namespace locsim
