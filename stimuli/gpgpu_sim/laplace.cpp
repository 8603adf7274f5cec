// Laplace solver (LPS of the GPGPU-Sim ISPASS 2009 benchmark set, Mike Giles' laplace3d):
// GPU_laplace3d, block (BLOCK_X = 32, BLOCK_Y = 4), grid (ceil(NX/32), ceil(NY/4)); each thread
// owns one (i, j) column and marches over the k planes, keeping three planes of its block plus a
// one-cell halo ring in shared memory u1[3][BLOCK_Y+2][BLOCK_X+2]:
//   k = tx + ty*BLOCK_X;  halo = k < 2*(BLOCK_X+BLOCK_Y+2);
//   if (halo) { if (ty < 2) { i = tx; j = ty*(BLOCK_Y+1) - 1; }              // y-halos
//               else        { i = (k%2)*(BLOCK_X+1) - 1; j = k/2 - BLOCK_X - 1; }  // x-halos
//               halo &= in-domain; }
//   if (active) u1[ind+KOFF] = d_u1[indg];  if (halo) u1[ind_h+KOFF] = d_u1[indg_h];
//   for (k = 0; k < NZ; k++) {
//     if (active) { indg0 = indg; indg += NY*pitch; u1[ind-KOFF] = u1[ind]; u1[ind] = u1[ind+KOFF];
//                   if (k < NZ-1) u1[ind+KOFF] = d_u1[indg]; }
//     if (halo)   { same with ind_h / indg_h }
//     __syncthreads();
//     if (active) { if (on the domain boundary) u2 = d_u1[indg0];
//                   else u2 = (six neighbours in u1) / 6;   d_u2[indg0] = u2; }
//     __syncthreads();
//   }
// The host runs `iterations` Jacobi sweeps, swapping d_u1 and d_u2 between launches.
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

WorkloadInfo laplace_workload();

namespace {

constexpr std::int64_t kBx = 32, kBy = 4;
constexpr std::int64_t kJoff = kBx + 2, kKoff = (kBx + 2) * (kBy + 2);
enum : std::uint16_t { kU1, kU2 };

enum : std::uint32_t {
  kPcSetup = 0x00,
  kPcLdInit = 0x08,
  kPcStsInit = 0x10,
  kPcLdInitH = 0x18,
  kPcStsInitH = 0x20,
  kPcLds0 = 0x28,  // active: u1[ind-KOFF] = u1[ind]; u1[ind] = u1[ind+KOFF]; load plane k+1
  kPcSts0 = 0x30,
  kPcLds1 = 0x38,
  kPcSts1 = 0x40,
  kPcLdNext = 0x48,
  kPcStsNext = 0x50,
  kPcLdsH0 = 0x58,  // the same for the halo cells
  kPcStsH0 = 0x60,
  kPcLdsH1 = 0x68,
  kPcStsH1 = 0x70,
  kPcLdNextH = 0x78,
  kPcStsNextH = 0x80,
  kPcBar1 = 0x88,
  kPcLdBnd = 0x90,  // Dirichlet boundary: u2 = d_u1[indg0]
  kPcLdsNb = 0x98,  // + 8*n, six neighbours
  kPcAvg = 0xc8,
  kPcStU2 = 0xd0,
  kPcBar2 = 0xd8,
  kPcExit = 0xe0
};

struct LpParams {
  std::int64_t nx = 0, ny = 0, nz = 0, pitch = 0;
  Addr u1 = 0, u2 = 0;
};

class LpStream final : public CoroutineStream {
 public:
  LpStream(const WarpContext& w, const LpParams& p) : w_(w), p_(p) {
    for (unsigned l = 0; l < kLanesPerWarp; ++l) {
      const std::int64_t tx = w.thread_idx(l).x, ty = w.thread_idx(l).y;
      const std::int64_t k = tx + ty * kBx;
      std::int64_t hi = 0, hj = 0;
      if (ty < 2) {
        hi = tx;
        hj = ty * (kBy + 1) - 1;
      } else {
        hi = (k % 2) * (kBx + 1) - 1;
        hj = k / 2 - kBx - 1;
      }
      ind_h_[l] = hi + 1 + (hj + 1) * kJoff + kKoff;
      const std::int64_t gi = hi + w.block_idx().x * kBx, gj = hj + w.block_idx().y * kBy;
      indg_h_[l] = gi + gj * p.pitch;
      const bool halo = k < 2 * (kBx + kBy + 2) && gi >= 0 && gi < p.nx && gj >= 0 && gj < p.ny;
      if (halo && ((w.live_mask() >> l) & 1u)) halo_ |= 1u << l;
    }
    active_ = w.lanes_where([&](unsigned l) { return gi(l) < p.nx && gj(l) < p.ny; });
    edge_ = w.lanes_where([&](unsigned l) {
      return gi(l) == 0 || gi(l) == p.nx - 1 || gj(l) == 0 || gj(l) == p.ny - 1;
    });
  }

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    LOCSIM_CO_YIELD(emit_compute(in, kPcSetup, all, 12, kAluLatency));  // index set-up
    if (active_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcLdInit, active_, kU1,
                                [this](unsigned l) { return gaddr(p_.u1, indg(l), 0); }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcStsInit, active_,
                                        [this](unsigned l) { return sh(ind(l) + kKoff); }));
    }
    if (halo_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcLdInitH, halo_, kU1,
                                [this](unsigned l) { return gaddr(p_.u1, indg_h_[l], 0); }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcStsInitH, halo_,
                                        [this](unsigned l) { return sh(ind_h_[l] + kKoff); }));
    }
    for (k_ = 0; k_ < p_.nz; ++k_) {
      if (active_) {
        LOCSIM_CO_YIELD(
            emit_shared_load(in, kPcLds0, active_, [this](unsigned l) { return sh(ind(l)); }));
        LOCSIM_CO_YIELD(emit_shared_store(in, kPcSts0, active_,
                                          [this](unsigned l) { return sh(ind(l) - kKoff); }));
        LOCSIM_CO_YIELD(emit_shared_load(in, kPcLds1, active_,
                                         [this](unsigned l) { return sh(ind(l) + kKoff); }));
        LOCSIM_CO_YIELD(
            emit_shared_store(in, kPcSts1, active_, [this](unsigned l) { return sh(ind(l)); }));
        if (k_ < p_.nz - 1) {
          LOCSIM_CO_YIELD(emit_load(in, kPcLdNext, active_, kU1,
                                    [this](unsigned l) { return gaddr(p_.u1, indg(l), k_ + 1); }));
          LOCSIM_CO_YIELD(emit_shared_store(in, kPcStsNext, active_,
                                            [this](unsigned l) { return sh(ind(l) + kKoff); }));
        }
      }
      if (halo_) {
        LOCSIM_CO_YIELD(
            emit_shared_load(in, kPcLdsH0, halo_, [this](unsigned l) { return sh(ind_h_[l]); }));
        LOCSIM_CO_YIELD(emit_shared_store(in, kPcStsH0, halo_,
                                          [this](unsigned l) { return sh(ind_h_[l] - kKoff); }));
        LOCSIM_CO_YIELD(emit_shared_load(in, kPcLdsH1, halo_,
                                         [this](unsigned l) { return sh(ind_h_[l] + kKoff); }));
        LOCSIM_CO_YIELD(
            emit_shared_store(in, kPcStsH1, halo_, [this](unsigned l) { return sh(ind_h_[l]); }));
        if (k_ < p_.nz - 1) {
          LOCSIM_CO_YIELD(emit_load(in, kPcLdNextH, halo_, kU1, [this](unsigned l) {
            return gaddr(p_.u1, indg_h_[l], k_ + 1);
          }));
          LOCSIM_CO_YIELD(emit_shared_store(in, kPcStsNextH, halo_,
                                            [this](unsigned l) { return sh(ind_h_[l] + kKoff); }));
        }
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBar1, all));
      if (active_) {
        bnd_ = (k_ == 0 || k_ == p_.nz - 1) ? active_ : (active_ & edge_);
        if (bnd_) {
          LOCSIM_CO_YIELD(emit_load(in, kPcLdBnd, bnd_, kU1,
                                    [this](unsigned l) { return gaddr(p_.u1, indg(l), k_); }));
        }
        if (active_ & ~bnd_) {
          for (n_ = 0; n_ < 6; ++n_) {
            LOCSIM_CO_YIELD(
                emit_shared_load(in, kPcLdsNb + 8 * n_, active_ & ~bnd_, [this](unsigned l) {
                  static constexpr std::int64_t off[6] = {-1, 1, -kJoff, kJoff, -kKoff, kKoff};
                  return sh(ind(l) + off[n_]);
                }));
          }
          LOCSIM_CO_YIELD(emit_compute(in, kPcAvg, active_ & ~bnd_, 6, kAluLatency));
        }
        LOCSIM_CO_YIELD(emit_store(in, kPcStU2, active_, kU2,
                                   [this](unsigned l) { return gaddr(p_.u2, indg(l), k_); }));
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBar2, all));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, all));
    LOCSIM_CO_END;
  }

 private:
  std::int64_t gi(unsigned l) const { return static_cast<std::int64_t>(w_.global_x(l)); }
  std::int64_t gj(unsigned l) const { return static_cast<std::int64_t>(w_.global_y(l)); }
  std::int64_t indg(unsigned l) const { return gi(l) + gj(l) * p_.pitch; }
  std::int64_t ind(unsigned l) const {
    return w_.thread_idx(l).x + 1 + (w_.thread_idx(l).y + 1) * kJoff + kKoff;
  }
  Addr gaddr(Addr base, std::int64_t indg, std::int64_t k) const {
    return base + static_cast<Addr>(4 * (indg + k * p_.ny * p_.pitch));
  }
  static Addr sh(std::int64_t idx) { return static_cast<Addr>(4 * idx); }

  WarpContext w_;
  LpParams p_;
  std::int64_t ind_h_[kLanesPerWarp] = {}, indg_h_[kLanesPerWarp] = {};
  std::uint32_t halo_ = 0, active_ = 0, edge_ = 0, bnd_ = 0;
  std::int64_t k_ = 0;
  unsigned n_ = 0;
};

WorkloadParamDecls params() {
  return {{"nx", {"128", "grid points in x (the row pitch is nx)"}},
          {"ny", {"64", "grid points in y"}},
          {"nz", {"32", "grid points in z (planes each thread marches over)"}},
          {"iterations", {"2", "Jacobi sweeps (kernel launches, u1 and u2 swapped)"}}};
}

std::unique_ptr<Workload> make_laplace(const WorkloadArgs& args) {
  WorkloadArgReader r("laplace", params(), args);
  LpParams p;
  p.nx = r.get_u32("nx", {3, 4096, 1, ""});
  p.ny = r.get_u32("ny", {3, 4096, 1, ""});
  p.nz = r.get_u32("nz", {3, 4096, 1, ""});
  const std::uint32_t iters = r.get_u32("iterations", {1, 1000, 1, ""});
  p.pitch = p.nx;
  const std::uint64_t bytes = static_cast<std::uint64_t>(p.pitch * p.ny * p.nz * 4);
  DeviceAllocator alloc;
  Addr a = alloc.alloc(bytes), b = alloc.alloc(bytes);
  std::vector<std::unique_ptr<Kernel>> ks;
  for (std::uint32_t it = 0; it < iters; ++it) {
    p.u1 = a;
    p.u2 = b;
    // Seed 000 Table 2: NO-REUSE, INTRA-THREAD. A thread re-reads its own d_u1 column element
    // on the boundary planes/edges (D-Tile: one plane element, the one just loaded); d_u2 is
    // written once.
    std::vector<DataStructure> data = {{"d_u1", a, bytes, 4, {intra_thread({1, 1, 2})}},
                                       {"d_u2", b, bytes, 4, {no_reuse()}}};
    KernelShape shape;
    shape.name = "GPU_laplace3d";
    shape.grid = {static_cast<std::uint32_t>((p.nx + kBx - 1) / kBx),
                  static_cast<std::uint32_t>((p.ny + kBy - 1) / kBy), 1};
    shape.block = {kBx, kBy, 1};
    shape.regs_per_thread = 20;
    shape.shared_mem_bytes = 3 * kKoff * 4;
    ks.push_back(make_grid_kernel<LpStream>(std::move(shape), std::move(data), p));
    std::swap(a, b);
  }
  return std::make_unique<KernelListWorkload>(
      "laplace",
      "Laplace solver (laplace3d), " + std::to_string(p.nx) + "x" + std::to_string(p.ny) + "x" +
          std::to_string(p.nz) + ", " + std::to_string(iters) + " sweep(s)",
      std::move(ks));
}

}  // namespace

WorkloadInfo laplace_workload() {
  return {"laplace",
          "GPGPU-Sim",
          "3D Laplace Jacobi sweeps, each thread marching over z with 3 shared planes + halo",
          "128x64x32, 2 sweeps",
          params(),
          make_laplace};
}

}  // namespace locsim
