// Rodinia srad_v2 (cuda/srad/srad_v2/srad_kernel.cu): speckle-reducing anisotropic diffusion on a
// rows x cols image J, 16x16 blocks on a (cols/16, rows/16) grid, two kernels per iteration.
// srad_cuda_1 (per thread, index = cols*16*by + 16*bx + cols*ty + tx):
//   north[ty][tx] = J[index_n = cols*16*by + 16*bx + tx - cols];   (row above the tile)
//   south[ty][tx] = J[index_s = cols*16*by + 16*bx + cols*16 + tx]; (row below the tile)
//   if (by == 0) north[ty][tx] = J[16*bx + tx];
//   else if (by == gridDim.y-1) south[ty][tx] = J[last row of the tile + tx];      __syncthreads();
//   west[ty][tx] = J[index_w = ... + cols*ty - 1];  east[ty][tx] = J[index_e = ... + cols*ty + 16];
//   (clamped to the tile's own first / last column at bx == 0 / gridDim.x-1)     __syncthreads();
//   temp[ty][tx] = J[index];                                                      __syncthreads();
//   jc = temp[ty][tx];  n/s/w/e from temp[][] or the halo arrays (9 border cases);
//   c = diffusion coefficient;  temp_result[ty][tx] = clamp(c);                  __syncthreads();
//   C[index] = temp_result[ty][tx];  E_C[index] = e;  W_C = w;  S_C = s;  N_C = n;
// srad_cuda_2:
//   temp[ty][tx] = J[index];                                                      __syncthreads();
//   south_c[ty][tx] = C[index_s] (tile's last row at the bottom);                 __syncthreads();
//   east_c[ty][tx] = C[index_e] (tile's last column at the right);               __syncthreads();
//   c_cuda_temp[ty][tx] = C[index];                                               __syncthreads();
//   cc = c_cuda_temp[ty][tx];  cs/ce from c_cuda_temp or south_c/east_c (4 cases);
//   d_sum = cc*N_C[index] + cs*S_C[index] + cc*W_C[index] + ce*E_C[index];
//   c_cuda_result[ty][tx] = temp[ty][tx] + 0.25*lambda*d_sum;                     __syncthreads();
//   J[index] = c_cuda_result[ty][tx];
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo srad_workload();

namespace {

constexpr std::int64_t kBlock = 16;  // BLOCK_SIZE
constexpr Addr kTile = kBlock * kBlock * 4;
// Data structure indices, the same in both kernels.
enum : std::uint16_t { kJ, kC, kEC, kWC, kNC, kSC };

struct SradParams {
  std::int64_t rows = 0, cols = 0;
  Addr j = 0, c = 0, e = 0, w = 0, n = 0, s = 0;
};

// A shared-memory operand: array base and the (row, col) offset from (ty, tx).
struct Src {
  Addr array;
  std::int64_t dy, dx;
};

class SradBase : public CoroutineStream {
 protected:
  SradBase(const WarpContext& w, const SradParams& p) : w_(w), p_(p) {
    base_ = p.cols * kBlock * w.block_idx().y + kBlock * w.block_idx().x;
    last_y_ = w.block_idx().y == w.grid_dim().y - 1;
    last_x_ = w.block_idx().x == w.grid_dim().x - 1;
  }
  std::int64_t tx(unsigned l) const { return w_.thread_idx(l).x; }
  std::int64_t ty(unsigned l) const { return w_.thread_idx(l).y; }
  std::int64_t index(unsigned l) const { return base_ + p_.cols * ty(l) + tx(l); }
  // Byte offset of array[ty+dy][tx+dx].
  Addr sh(unsigned l, const Src& s) const {
    return s.array + static_cast<Addr>(4 * ((ty(l) + s.dy) * kBlock + tx(l) + s.dx));
  }
  // The south halo element: the row below the tile, or the tile's own last row at the bottom.
  std::int64_t south(unsigned l) const {
    return last_y_ ? base_ + p_.cols * (kBlock - 1) + tx(l) : base_ + p_.cols * kBlock + tx(l);
  }
  // The east halo element: the column right of the tile, or the tile's own last column.
  std::int64_t east(unsigned l) const {
    return last_x_ ? base_ + p_.cols * ty(l) + kBlock - 1 : base_ + p_.cols * ty(l) + kBlock;
  }

  WarpContext w_;
  SradParams p_;
  std::int64_t base_ = 0;  // cols*BLOCK_SIZE*by + BLOCK_SIZE*bx
  bool last_y_ = false, last_x_ = false;
};

// ---------------------------------------------------------------------------- srad_cuda_1
constexpr Addr kTemp1 = 0, kResult1 = kTile, kNorth = 2 * kTile, kSouth = 3 * kTile,
               kEast = 4 * kTile, kWest = 5 * kTile;

// The 9 border cases of srad_cuda_1 in source order, each loading n, s, w, e.
constexpr int kCases1 = 9;
constexpr Src kCase1Src[kCases1][4] = {
    {{kNorth, 0, 0}, {kTemp1, 1, 0}, {kWest, 0, 0}, {kTemp1, 0, 1}},     // nw: ty==0 && tx==0
    {{kNorth, 0, 0}, {kTemp1, 1, 0}, {kTemp1, 0, -1}, {kEast, 0, 0}},    // ne: ty==0 && tx==15
    {{kTemp1, -1, 0}, {kSouth, 0, 0}, {kTemp1, 0, -1}, {kEast, 0, 0}},   // se: ty==15 && tx==15
    {{kTemp1, -1, 0}, {kSouth, 0, 0}, {kWest, 0, 0}, {kTemp1, 0, 1}},    // sw: ty==15 && tx==0
    {{kNorth, 0, 0}, {kTemp1, 1, 0}, {kTemp1, 0, -1}, {kTemp1, 0, 1}},   // n: ty==0
    {{kTemp1, -1, 0}, {kTemp1, 1, 0}, {kTemp1, 0, -1}, {kEast, 0, 0}},   // e: tx==15
    {{kTemp1, -1, 0}, {kSouth, 0, 0}, {kTemp1, 0, -1}, {kTemp1, 0, 1}},  // s: ty==15
    {{kTemp1, -1, 0}, {kTemp1, 1, 0}, {kWest, 0, 0}, {kTemp1, 0, 1}},    // w: tx==0
    {{kTemp1, -1, 0}, {kTemp1, 1, 0}, {kTemp1, 0, -1}, {kTemp1, 0, 1}},  // interior
};

int case1(std::int64_t ty, std::int64_t tx) {
  const std::int64_t e = kBlock - 1;
  if (ty == 0 && tx == 0) return 0;
  if (ty == 0 && tx == e) return 1;
  if (ty == e && tx == e) return 2;
  if (ty == e && tx == 0) return 3;
  if (ty == 0) return 4;
  if (tx == e) return 5;
  if (ty == e) return 6;
  if (tx == 0) return 7;
  return 8;
}

enum : std::uint32_t {
  k1Index = 0x000,
  k1LdN = 0x008,
  k1StsN = 0x010,
  k1LdS = 0x018,
  k1StsS = 0x020,
  k1Bar0 = 0x028,
  k1LdW = 0x030,
  k1StsW = 0x038,
  k1LdE = 0x040,
  k1StsE = 0x048,
  k1Bar1 = 0x050,
  k1LdJ = 0x058,
  k1StsT = 0x060,
  k1Bar2 = 0x068,
  k1LdsJc = 0x070,
  k1Case = 0x078,  // + 0x20 * case + 0x08 * operand (n, s, w, e)
  k1Coef = k1Case + 0x20 * kCases1,
  k1StsRes = k1Coef + 0x08,
  k1Bar3 = k1Coef + 0x10,
  k1LdsRes = k1Coef + 0x18,
  k1StC = k1Coef + 0x20,
  k1StE = k1Coef + 0x28,
  k1StW = k1Coef + 0x30,
  k1StS = k1Coef + 0x38,
  k1StN = k1Coef + 0x40,
  k1Exit = k1Coef + 0x48
};

class Srad1Stream final : public SradBase {
 public:
  Srad1Stream(const WarpContext& w, const SradParams& p) : SradBase(w, p) {
    for (int c = 0; c < kCases1; ++c)
      case_mask_[c] = w.lanes_where([&](unsigned l) { return case1(ty(l), tx(l)) == c; });
  }

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    auto own = [this](Addr a) { return [this, a](unsigned l) { return sh(l, {a, 0, 0}); }; };
    auto g = [](Addr base, std::int64_t i) { return base + static_cast<Addr>(4 * i); };
    LOCSIM_CO_BEGIN;
    LOCSIM_CO_YIELD(emit_compute(in, k1Index, all, 8, kAluLatency));  // index, index_n/s/w/e
    LOCSIM_CO_YIELD(emit_load(in, k1LdN, all, kJ, [&](unsigned l) {   // north (row 0 at by == 0)
      return g(p_.j,
               w_.block_idx().y == 0 ? kBlock * w_.block_idx().x + tx(l) : base_ + tx(l) - p_.cols);
    }));
    LOCSIM_CO_YIELD(emit_shared_store(in, k1StsN, all, own(kNorth)));
    LOCSIM_CO_YIELD(emit_load(in, k1LdS, all, kJ, [&](unsigned l) { return g(p_.j, south(l)); }));
    LOCSIM_CO_YIELD(emit_shared_store(in, k1StsS, all, own(kSouth)));
    LOCSIM_CO_YIELD(emit_barrier(in, k1Bar0, all));
    LOCSIM_CO_YIELD(emit_load(in, k1LdW, all, kJ, [&](unsigned l) {  // west (own column 0 at bx 0)
      return g(p_.j, w_.block_idx().x == 0 ? base_ + p_.cols * ty(l) : base_ + p_.cols * ty(l) - 1);
    }));
    LOCSIM_CO_YIELD(emit_shared_store(in, k1StsW, all, own(kWest)));
    LOCSIM_CO_YIELD(emit_load(in, k1LdE, all, kJ, [&](unsigned l) { return g(p_.j, east(l)); }));
    LOCSIM_CO_YIELD(emit_shared_store(in, k1StsE, all, own(kEast)));
    LOCSIM_CO_YIELD(emit_barrier(in, k1Bar1, all));
    LOCSIM_CO_YIELD(emit_load(in, k1LdJ, all, kJ, [&](unsigned l) { return g(p_.j, index(l)); }));
    LOCSIM_CO_YIELD(emit_shared_store(in, k1StsT, all, own(kTemp1)));
    LOCSIM_CO_YIELD(emit_barrier(in, k1Bar2, all));
    LOCSIM_CO_YIELD(emit_shared_load(in, k1LdsJc, all, own(kTemp1)));  // jc
    for (c_ = 0; c_ < kCases1; ++c_) {
      if (!case_mask_[c_]) continue;
      for (k_ = 0; k_ < 4; ++k_) {
        LOCSIM_CO_YIELD(emit_shared_load(in, k1Case + 0x20 * c_ + 0x08 * k_, case_mask_[c_],
                                         [this](unsigned l) { return sh(l, kCase1Src[c_][k_]); }));
      }
    }
    // g2, l, num, den, qsqr, c and the clamp: ~20 dependent FP instructions incl. a division.
    LOCSIM_CO_YIELD(emit_compute(in, k1Coef, all, 20, kAluLatency));
    LOCSIM_CO_YIELD(emit_shared_store(in, k1StsRes, all, own(kResult1)));
    LOCSIM_CO_YIELD(emit_barrier(in, k1Bar3, all));
    LOCSIM_CO_YIELD(emit_shared_load(in, k1LdsRes, all, own(kResult1)));
    LOCSIM_CO_YIELD(emit_store(in, k1StC, all, kC, [&](unsigned l) { return g(p_.c, index(l)); }));
    LOCSIM_CO_YIELD(emit_store(in, k1StE, all, kEC, [&](unsigned l) { return g(p_.e, index(l)); }));
    LOCSIM_CO_YIELD(emit_store(in, k1StW, all, kWC, [&](unsigned l) { return g(p_.w, index(l)); }));
    LOCSIM_CO_YIELD(emit_store(in, k1StS, all, kSC, [&](unsigned l) { return g(p_.s, index(l)); }));
    LOCSIM_CO_YIELD(emit_store(in, k1StN, all, kNC, [&](unsigned l) { return g(p_.n, index(l)); }));
    LOCSIM_CO_YIELD(emit_exit(in, k1Exit, all));
    LOCSIM_CO_END;
  }

 private:
  std::uint32_t case_mask_[kCases1] = {};
  int c_ = 0, k_ = 0;
};

// ---------------------------------------------------------------------------- srad_cuda_2
constexpr Addr kSouthC = 0, kEastC = kTile, kCTemp = 2 * kTile, kCResult = 3 * kTile,
               kTemp2 = 4 * kTile;

// The 4 border cases of srad_cuda_2 in source order, each loading cs, ce (cn = cw = cc).
constexpr int kCases2 = 4;
constexpr Src kCase2Src[kCases2][2] = {
    {{kSouthC, 0, 0}, {kEastC, 0, 0}},  // ty==15 && tx==15
    {{kCTemp, 1, 0}, {kEastC, 0, 0}},   // tx==15
    {{kSouthC, 0, 0}, {kCTemp, 0, 1}},  // ty==15
    {{kCTemp, 1, 0}, {kCTemp, 0, 1}},   // interior
};

int case2(std::int64_t ty, std::int64_t tx) {
  const std::int64_t e = kBlock - 1;
  if (ty == e && tx == e) return 0;
  if (tx == e) return 1;
  if (ty == e) return 2;
  return 3;
}

enum : std::uint32_t {
  k2Index = 0x000,
  k2LdJ = 0x008,
  k2StsT = 0x010,
  k2Bar0 = 0x018,
  k2LdS = 0x020,
  k2StsS = 0x028,
  k2Bar1 = 0x030,
  k2LdE = 0x038,
  k2StsE = 0x040,
  k2Bar2 = 0x048,
  k2LdC = 0x050,
  k2StsC = 0x058,
  k2Bar3 = 0x060,
  k2LdsCc = 0x068,
  k2Case = 0x070,  // + 0x10 * case + 0x08 * operand (cs, ce)
  k2LdN = k2Case + 0x10 * kCases2,
  k2LdSC = k2LdN + 0x08,
  k2LdWC = k2LdN + 0x10,
  k2LdEC = k2LdN + 0x18,
  k2Sum = k2LdN + 0x20,
  k2LdsT = k2LdN + 0x28,
  k2Upd = k2LdN + 0x30,
  k2StsRes = k2LdN + 0x38,
  k2Bar4 = k2LdN + 0x40,
  k2LdsRes = k2LdN + 0x48,
  k2StJ = k2LdN + 0x50,
  k2Exit = k2LdN + 0x58
};

class Srad2Stream final : public SradBase {
 public:
  Srad2Stream(const WarpContext& w, const SradParams& p) : SradBase(w, p) {
    for (int c = 0; c < kCases2; ++c)
      case_mask_[c] = w.lanes_where([&](unsigned l) { return case2(ty(l), tx(l)) == c; });
  }

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    auto own = [this](Addr a) { return [this, a](unsigned l) { return sh(l, {a, 0, 0}); }; };
    auto g = [](Addr base, std::int64_t i) { return base + static_cast<Addr>(4 * i); };
    LOCSIM_CO_BEGIN;
    LOCSIM_CO_YIELD(emit_compute(in, k2Index, all, 6, kAluLatency));
    LOCSIM_CO_YIELD(emit_load(in, k2LdJ, all, kJ, [&](unsigned l) { return g(p_.j, index(l)); }));
    LOCSIM_CO_YIELD(emit_shared_store(in, k2StsT, all, own(kTemp2)));
    LOCSIM_CO_YIELD(emit_barrier(in, k2Bar0, all));
    LOCSIM_CO_YIELD(emit_load(in, k2LdS, all, kC, [&](unsigned l) { return g(p_.c, south(l)); }));
    LOCSIM_CO_YIELD(emit_shared_store(in, k2StsS, all, own(kSouthC)));
    LOCSIM_CO_YIELD(emit_barrier(in, k2Bar1, all));
    LOCSIM_CO_YIELD(emit_load(in, k2LdE, all, kC, [&](unsigned l) { return g(p_.c, east(l)); }));
    LOCSIM_CO_YIELD(emit_shared_store(in, k2StsE, all, own(kEastC)));
    LOCSIM_CO_YIELD(emit_barrier(in, k2Bar2, all));
    LOCSIM_CO_YIELD(emit_load(in, k2LdC, all, kC, [&](unsigned l) { return g(p_.c, index(l)); }));
    LOCSIM_CO_YIELD(emit_shared_store(in, k2StsC, all, own(kCTemp)));
    LOCSIM_CO_YIELD(emit_barrier(in, k2Bar3, all));
    LOCSIM_CO_YIELD(emit_shared_load(in, k2LdsCc, all, own(kCTemp)));  // cc
    for (c_ = 0; c_ < kCases2; ++c_) {
      if (!case_mask_[c_]) continue;
      for (k_ = 0; k_ < 2; ++k_) {
        LOCSIM_CO_YIELD(emit_shared_load(in, k2Case + 0x10 * c_ + 0x08 * k_, case_mask_[c_],
                                         [this](unsigned l) { return sh(l, kCase2Src[c_][k_]); }));
      }
    }
    LOCSIM_CO_YIELD(emit_load(in, k2LdN, all, kNC, [&](unsigned l) { return g(p_.n, index(l)); }));
    LOCSIM_CO_YIELD(emit_load(in, k2LdSC, all, kSC, [&](unsigned l) { return g(p_.s, index(l)); }));
    LOCSIM_CO_YIELD(emit_load(in, k2LdWC, all, kWC, [&](unsigned l) { return g(p_.w, index(l)); }));
    LOCSIM_CO_YIELD(emit_load(in, k2LdEC, all, kEC, [&](unsigned l) { return g(p_.e, index(l)); }));
    LOCSIM_CO_YIELD(emit_compute(in, k2Sum, all, 4, kAluLatency));  // d_sum: FMUL + 3 FFMA
    LOCSIM_CO_YIELD(emit_shared_load(in, k2LdsT, all, own(kTemp2)));
    LOCSIM_CO_YIELD(emit_compute(in, k2Upd, all, 2, kAluLatency));  // temp + 0.25*lambda*d_sum
    LOCSIM_CO_YIELD(emit_shared_store(in, k2StsRes, all, own(kCResult)));
    LOCSIM_CO_YIELD(emit_barrier(in, k2Bar4, all));
    LOCSIM_CO_YIELD(emit_shared_load(in, k2LdsRes, all, own(kCResult)));
    LOCSIM_CO_YIELD(emit_store(in, k2StJ, all, kJ, [&](unsigned l) { return g(p_.j, index(l)); }));
    LOCSIM_CO_YIELD(emit_exit(in, k2Exit, all));
    LOCSIM_CO_END;
  }

 private:
  std::uint32_t case_mask_[kCases2] = {};
  int c_ = 0, k_ = 0;
};

WorkloadParamDecls params() {
  return {{"rows", {"256", "image rows (a multiple of 16)"}},
          {"cols", {"256", "image columns (a multiple of 16)"}},
          {"iterations", {"2", "diffusion iterations (srad_cuda_1 + srad_cuda_2 each)"}}};
}

std::unique_ptr<Workload> make_srad(const WorkloadArgs& args) {
  WorkloadArgReader r("srad", params(), args);
  SradParams p;
  const UIntRule dim{16, 16384, 16, "srad_v2 tiles are 16x16"};
  p.rows = r.get_u32("rows", dim);
  p.cols = r.get_u32("cols", dim);
  const std::uint32_t iters = r.get_u32("iterations", {1, 10000, 1, ""});
  const std::uint64_t bytes = static_cast<std::uint64_t>(p.rows * p.cols) * 4;
  DeviceAllocator alloc;
  p.j = alloc.alloc(bytes);
  p.c = alloc.alloc(bytes);
  p.e = alloc.alloc(bytes);
  p.w = alloc.alloc(bytes);
  p.n = alloc.alloc(bytes);
  p.s = alloc.alloc(bytes);
  const Dim3 grid{static_cast<std::uint32_t>(p.cols / kBlock),
                  static_cast<std::uint32_t>(p.rows / kBlock), 1};
  const std::uint64_t cols = static_cast<std::uint64_t>(p.cols);
  // J in srad_cuda_1 and C in srad_cuda_2: INTER-THREAD (NEARBY, REGULAR) -- each CTA reads its
  // 16x16 tile plus the neighbouring tiles' edge row/column (the stencil halo).
  const auto halo = inter_thread(SharingType::Nearby, AccessPattern::Regular, {16, 16, 1},
                                 {1, 1, 1}, {1, 1, 0}, cols);
  auto data_for = [&](bool first) {
    // The derivative arrays and the other kernel's J/C are touched once per element by the
    // element's own thread: NO-REUSE.
    return std::vector<DataStructure>{{"J_cuda", p.j, bytes, 4, {first ? halo : no_reuse()}},
                                      {"C_cuda", p.c, bytes, 4, {first ? no_reuse() : halo}},
                                      {"E_C", p.e, bytes, 4, {no_reuse()}},
                                      {"W_C", p.w, bytes, 4, {no_reuse()}},
                                      {"N_C", p.n, bytes, 4, {no_reuse()}},
                                      {"S_C", p.s, bytes, 4, {no_reuse()}}};
  };
  std::vector<std::unique_ptr<Kernel>> ks;
  for (std::uint32_t it = 0; it < iters; ++it) {
    KernelShape s1;
    s1.name = "srad_cuda_1";
    s1.grid = grid;
    s1.block = {kBlock, kBlock, 1};
    s1.regs_per_thread = 28;
    s1.shared_mem_bytes = 6 * kTile;
    ks.push_back(make_grid_kernel<Srad1Stream>(std::move(s1), data_for(true), p));
    KernelShape s2;
    s2.name = "srad_cuda_2";
    s2.grid = grid;
    s2.block = {kBlock, kBlock, 1};
    s2.regs_per_thread = 20;
    s2.shared_mem_bytes = 5 * kTile;
    ks.push_back(make_grid_kernel<Srad2Stream>(std::move(s2), data_for(false), p));
  }
  return std::make_unique<KernelListWorkload>("srad",
                                              "Rodinia srad_v2, " + std::to_string(p.rows) + "x" +
                                                  std::to_string(p.cols) + ", " +
                                                  std::to_string(iters) + " iterations",
                                              std::move(ks));
}

}  // namespace

WorkloadInfo srad_workload() {
  return {"srad",
          "Rodinia",
          "speckle-reducing diffusion (srad_v2): two 16x16-tile stencil kernels per iteration",
          "rows=256, cols=256, iterations=2",
          params(),
          make_srad,
          // PAVER Table 2: 16384 TBs = 128x128 tiles of 2048x2048.
          {{"paver", {{"rows", "2048"}, {"cols", "2048"}}}}};
}

}  // namespace locsim
