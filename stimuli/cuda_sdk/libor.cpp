// LIBOR Monte Carlo (Mike Giles' swaption-portfolio code, the LIB benchmark of GPGPU-Sim's ISPASS
// 2009 set and seed 000 Table 2): NN = 80 forward rates, NMAT = 40 maturities, NOPT = 15 swaptions,
// BLOCK_SIZE = 64, GRID_SIZE = 64, one path per thread in a grid-stride loop
//   for (path = tid; path < NPATH; path += blockDim.x*gridDim.x) { ... }
// The host launches Pathcalc_Portfolio_KernelGPU2 (path_calc + portfolio, no Greeks), then
// Pathcalc_Portfolio_KernelGPU (path_calc_b1, portfolio_b, path_calc_b2: the adjoint with the
// L2[NN*(NMAT+1)] forward-path store). The per-thread arrays L[], z[], L2[], B[], S[], B_b[],
// S_b[] are indexed with run-time bounds, so they live in local memory: each thread streams
// through its own private arrays again and again (INTRA-THREAD, seed 000 Table 2).
// Local memory is modelled with the hardware's interleaving: word w of the thread in lane l of
// global warp g is at local + 4*((g*W + w)*32 + l), W = words per thread, so a warp's access to
// one array element is one 128-byte line.
// The one data-dependent branch (portfolio_b's `if (swapval < 0)`) is the same for every path
// (z = 0.3, L0 = 0.05 as in the original), decided by running the float recurrence on the host.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo libor_workload();

namespace {

constexpr std::uint32_t kNN = 80, kNmat = 40, kNopt = 15, kBlock = 64;
constexpr std::uint32_t kMaturities[kNopt] = {4, 4, 4, 8, 8, 8, 20, 20, 20, 28, 28, 28, 40, 40, 40};
constexpr float kSwaprates[kNopt] = {.045f, .05f,  .055f, .045f, .05f,  .055f, .045f, .05f,
                                     .055f, .045f, .05f,  .055f, .045f, .05f,  .055f};
enum : std::uint16_t { kLocal, kV, kLb };

// Local-memory word offsets of the per-thread arrays (Greeks kernel; the no-Greeks kernel uses
// L, z, B, S at the same offsets).
constexpr std::uint32_t kOffL = 0, kOffL2 = kNN, kOffZ = kOffL2 + kNN * (kNmat + 1),
                        kOffB = kOffZ + kNN, kOffS = kOffB + kNmat, kOffBb = kOffS + kNmat,
                        kOffSb = kOffBb + kNmat, kWords = kOffSb + kNmat;

struct LiborParams {
  std::uint32_t npath = 0, threads = 0;
  std::uint32_t swap_neg = 0;  // bit n: swapval < 0 for option n
  Addr local = 0, v = 0, lb = 0;
};

// Shared by both kernels' streams: path loop and local-memory addressing.
class LiborBase : public CoroutineStream {
 protected:
  LiborBase(const WarpContext& w, const LiborParams& p) : w_(w), p_(p) {}
  std::uint32_t path_mask() const {
    return w_.lanes_where([this](unsigned l) { return w_.global_linear(l) + pbase_ < p_.npath; });
  }
  // Address of local word `word` of this lane's thread.
  Addr loc(unsigned l, std::uint32_t word) const {
    const std::uint64_t t = w_.global_linear(l);
    return p_.local + 4 * (((t / 32) * kWords + word) * 32 + t % 32);
  }
  auto at(std::uint32_t word) const {
    return [this, word](unsigned l) { return loc(l, word); };
  }
  auto out(Addr base) const {
    return [this, base](unsigned l) { return base + 4 * (w_.global_linear(l) + pbase_); };
  }

  WarpContext w_;
  LiborParams p_;
  std::uint64_t pbase_ = 0;
  std::uint32_t m_ = 0;         // lanes with path < NPATH
  std::int32_t i_ = 0, n_ = 0;  // loop counters
};

enum : std::uint32_t {  // Pathcalc_Portfolio_KernelGPU2
  k2Init = 0x000,       // st z, st L
  k2LdZ = 0x010,
  k2Sqez = 0x018,
  k2LdL = 0x020,
  k2Body = 0x028,
  k2StL = 0x030,
  k2PfLd = 0x038,
  k2PfC = 0x040,
  k2PfStB = 0x048,
  k2PfStS = 0x050,
  k2OptLdB = 0x058,
  k2OptLdS = 0x060,
  k2OptC = 0x068,
  k2DiscLd = 0x070,
  k2DiscC = 0x078,
  k2StV = 0x080,
  k2Exit = 0x088
};

class Kernel2Stream final : public LiborBase {
 public:
  Kernel2Stream(const WarpContext& w, const LiborParams& p) : LiborBase(w, p) {}
  bool next(WarpInst& in) override {
    LOCSIM_CO_BEGIN;
    for (pbase_ = 0; (m_ = path_mask()) != 0; pbase_ += p_.threads) {
      for (i_ = 0; i_ < static_cast<std::int32_t>(kNN); ++i_) {
        LOCSIM_CO_YIELD(emit_store(in, k2Init, m_, kLocal, at(kOffZ + i_)));
        LOCSIM_CO_YIELD(emit_store(in, k2Init + 8, m_, kLocal, at(kOffL + i_)));
      }
      for (n_ = 0; n_ < static_cast<std::int32_t>(kNmat); ++n_) {  // path_calc
        LOCSIM_CO_YIELD(emit_load(in, k2LdZ, m_, kLocal, at(kOffZ + n_)));
        LOCSIM_CO_YIELD(emit_compute(in, k2Sqez, m_, 2, kAluLatency));
        for (i_ = n_ + 1; i_ < static_cast<std::int32_t>(kNN); ++i_) {
          LOCSIM_CO_YIELD(emit_load(in, k2LdL, m_, kLocal, at(kOffL + i_)));
          LOCSIM_CO_YIELD(emit_compute(in, k2Body, m_, 10, 2 * kAluLatency));  // fdividef, expf
          LOCSIM_CO_YIELD(emit_store(in, k2StL, m_, kLocal, at(kOffL + i_)));
        }
      }
      for (n_ = kNmat; n_ < static_cast<std::int32_t>(kNN); ++n_) {  // portfolio
        LOCSIM_CO_YIELD(emit_load(in, k2PfLd, m_, kLocal, at(kOffL + n_)));
        LOCSIM_CO_YIELD(emit_compute(in, k2PfC, m_, 4, 2 * kAluLatency));
        LOCSIM_CO_YIELD(emit_store(in, k2PfStB, m_, kLocal, at(kOffB + n_ - kNmat)));
        LOCSIM_CO_YIELD(emit_store(in, k2PfStS, m_, kLocal, at(kOffS + n_ - kNmat)));
      }
      for (i_ = 0; i_ < static_cast<std::int32_t>(kNopt); ++i_) {
        LOCSIM_CO_YIELD(emit_load(in, k2OptLdB, m_, kLocal, at(kOffB + kMaturities[i_] - 1)));
        LOCSIM_CO_YIELD(emit_load(in, k2OptLdS, m_, kLocal, at(kOffS + kMaturities[i_] - 1)));
        LOCSIM_CO_YIELD(emit_compute(in, k2OptC, m_, 4, kAluLatency));
      }
      for (n_ = 0; n_ < static_cast<std::int32_t>(kNmat); ++n_) {  // discount
        LOCSIM_CO_YIELD(emit_load(in, k2DiscLd, m_, kLocal, at(kOffL + n_)));
        LOCSIM_CO_YIELD(emit_compute(in, k2DiscC, m_, 3, 2 * kAluLatency));
      }
      LOCSIM_CO_YIELD(emit_store(in, k2StV, m_, kV, out(p_.v)));
    }
    LOCSIM_CO_YIELD(emit_exit(in, k2Exit, w_.live_mask()));
    LOCSIM_CO_END;
  }
};

enum : std::uint32_t {  // Pathcalc_Portfolio_KernelGPU
  k1Init = 0x000,       // st z, st L
  k1CpLd = 0x010,       // L2[i] = L[i]
  k1CpSt = 0x018,
  k1LdZ = 0x020,
  k1Sqez = 0x028,
  k1LdL = 0x030,
  k1Body = 0x038,
  k1StL = 0x040,
  k1StL2 = 0x048,
  k1PfLd = 0x050,
  k1PfC = 0x058,
  k1PfStB = 0x060,
  k1PfStS = 0x068,
  k1ZeroBb = 0x070,
  k1ZeroSb = 0x078,
  k1OptLdB = 0x080,
  k1OptLdS = 0x088,
  k1OptC = 0x090,
  k1OptLdSb = 0x098,  // taken branch: S_b[m] += ..., B_b[m] += ...
  k1OptStSb = 0x0a0,
  k1OptLdBb = 0x0a8,
  k1OptStBb = 0x0b0,
  k1RevLdBb = 0x0b8,  // reverse sweep over m
  k1RevLdSb = 0x0c0,
  k1RevStBb = 0x0c8,
  k1RevLdB = 0x0d0,
  k1RevLdL = 0x0d8,
  k1RevC = 0x0e0,
  k1RevStLb = 0x0e8,
  k1RevLdSb1 = 0x0f0,  // m > 0
  k1RevStSb1 = 0x0f8,
  k1RevLdBb1 = 0x100,
  k1RevStBb1 = 0x108,
  k1DiscLd = 0x110,
  k1DiscC = 0x118,
  k1LbLd = 0x120,  // L_b[n] = -v*delta/(1+delta*L[n]), n < Nmat
  k1LbC = 0x128,
  k1LbSt = 0x130,
  k1LbLd2 = 0x138,  // L_b[n] = b*L_b[n], n >= Nmat
  k1LbSt2 = 0x140,
  k1StV = 0x148,
  k1B2LdL2a = 0x150,  // path_calc_b2
  k1B2LdLb = 0x158,
  k1B2LdL2b = 0x160,
  k1B2C = 0x168,
  k1B2StLb = 0x170,
  k1LdLast = 0x178,
  k1StLb = 0x180,
  k1Exit = 0x188
};

class Kernel1Stream final : public LiborBase {
 public:
  Kernel1Stream(const WarpContext& w, const LiborParams& p) : LiborBase(w, p) {}
  bool next(WarpInst& in) override {
    const std::int32_t nn = kNN, nmat = kNmat;
    LOCSIM_CO_BEGIN;
    for (pbase_ = 0; (m_ = path_mask()) != 0; pbase_ += p_.threads) {
      for (i_ = 0; i_ < nn; ++i_) {
        LOCSIM_CO_YIELD(emit_store(in, k1Init, m_, kLocal, at(kOffZ + i_)));
        LOCSIM_CO_YIELD(emit_store(in, k1Init + 8, m_, kLocal, at(kOffL + i_)));
      }
      // path_calc_b1
      for (i_ = 0; i_ < nn; ++i_) {
        LOCSIM_CO_YIELD(emit_load(in, k1CpLd, m_, kLocal, at(kOffL + i_)));
        LOCSIM_CO_YIELD(emit_store(in, k1CpSt, m_, kLocal, at(kOffL2 + i_)));
      }
      for (n_ = 0; n_ < nmat; ++n_) {
        LOCSIM_CO_YIELD(emit_load(in, k1LdZ, m_, kLocal, at(kOffZ + n_)));
        LOCSIM_CO_YIELD(emit_compute(in, k1Sqez, m_, 2, 2 * kAluLatency));
        for (i_ = n_ + 1; i_ < nn; ++i_) {
          LOCSIM_CO_YIELD(emit_load(in, k1LdL, m_, kLocal, at(kOffL + i_)));
          LOCSIM_CO_YIELD(emit_compute(in, k1Body, m_, 10, 2 * kAluLatency));
          LOCSIM_CO_YIELD(emit_store(in, k1StL, m_, kLocal, at(kOffL + i_)));
          LOCSIM_CO_YIELD(emit_store(in, k1StL2, m_, kLocal, at(kOffL2 + i_ + (n_ + 1) * nn)));
        }
      }
      // portfolio_b
      for (i_ = 0; i_ < nn - nmat; ++i_) {
        LOCSIM_CO_YIELD(emit_load(in, k1PfLd, m_, kLocal, at(kOffL + i_ + nmat)));
        LOCSIM_CO_YIELD(emit_compute(in, k1PfC, m_, 4, 2 * kAluLatency));
        LOCSIM_CO_YIELD(emit_store(in, k1PfStB, m_, kLocal, at(kOffB + i_)));
        LOCSIM_CO_YIELD(emit_store(in, k1PfStS, m_, kLocal, at(kOffS + i_)));
      }
      for (i_ = 0; i_ < nn - nmat; ++i_) {
        LOCSIM_CO_YIELD(emit_store(in, k1ZeroBb, m_, kLocal, at(kOffBb + i_)));
        LOCSIM_CO_YIELD(emit_store(in, k1ZeroSb, m_, kLocal, at(kOffSb + i_)));
      }
      for (n_ = 0; n_ < static_cast<std::int32_t>(kNopt); ++n_) {
        LOCSIM_CO_YIELD(emit_load(in, k1OptLdB, m_, kLocal, at(kOffB + kMaturities[n_] - 1)));
        LOCSIM_CO_YIELD(emit_load(in, k1OptLdS, m_, kLocal, at(kOffS + kMaturities[n_] - 1)));
        LOCSIM_CO_YIELD(emit_compute(in, k1OptC, m_, 4, kAluLatency));
        if ((p_.swap_neg >> n_) & 1u) {
          LOCSIM_CO_YIELD(emit_load(in, k1OptLdSb, m_, kLocal, at(kOffSb + kMaturities[n_] - 1)));
          LOCSIM_CO_YIELD(emit_store(in, k1OptStSb, m_, kLocal, at(kOffSb + kMaturities[n_] - 1)));
          LOCSIM_CO_YIELD(emit_load(in, k1OptLdBb, m_, kLocal, at(kOffBb + kMaturities[n_] - 1)));
          LOCSIM_CO_YIELD(emit_store(in, k1OptStBb, m_, kLocal, at(kOffBb + kMaturities[n_] - 1)));
        }
      }
      for (i_ = nn - nmat - 1; i_ >= 0; --i_) {  // m = i_, n = m + Nmat
        LOCSIM_CO_YIELD(emit_load(in, k1RevLdBb, m_, kLocal, at(kOffBb + i_)));
        LOCSIM_CO_YIELD(emit_load(in, k1RevLdSb, m_, kLocal, at(kOffSb + i_)));
        LOCSIM_CO_YIELD(emit_store(in, k1RevStBb, m_, kLocal, at(kOffBb + i_)));
        LOCSIM_CO_YIELD(emit_load(in, k1RevLdB, m_, kLocal, at(kOffB + i_)));
        LOCSIM_CO_YIELD(emit_load(in, k1RevLdL, m_, kLocal, at(kOffL + i_ + nmat)));
        LOCSIM_CO_YIELD(emit_compute(in, k1RevC, m_, 6, 2 * kAluLatency));
        LOCSIM_CO_YIELD(emit_store(in, k1RevStLb, m_, kLocal, at(kOffL + i_ + nmat)));  // L_b = L
        if (i_ > 0) {
          LOCSIM_CO_YIELD(emit_load(in, k1RevLdSb1, m_, kLocal, at(kOffSb + i_ - 1)));
          LOCSIM_CO_YIELD(emit_store(in, k1RevStSb1, m_, kLocal, at(kOffSb + i_ - 1)));
          LOCSIM_CO_YIELD(emit_load(in, k1RevLdBb1, m_, kLocal, at(kOffBb + i_ - 1)));
          LOCSIM_CO_YIELD(emit_store(in, k1RevStBb1, m_, kLocal, at(kOffBb + i_ - 1)));
        }
      }
      for (n_ = 0; n_ < nmat; ++n_) {  // discount
        LOCSIM_CO_YIELD(emit_load(in, k1DiscLd, m_, kLocal, at(kOffL + n_)));
        LOCSIM_CO_YIELD(emit_compute(in, k1DiscC, m_, 3, 2 * kAluLatency));
      }
      for (n_ = 0; n_ < nmat; ++n_) {
        LOCSIM_CO_YIELD(emit_load(in, k1LbLd, m_, kLocal, at(kOffL + n_)));
        LOCSIM_CO_YIELD(emit_compute(in, k1LbC, m_, 4, 2 * kAluLatency));
        LOCSIM_CO_YIELD(emit_store(in, k1LbSt, m_, kLocal, at(kOffL + n_)));
      }
      for (n_ = nmat; n_ < nn; ++n_) {
        LOCSIM_CO_YIELD(emit_load(in, k1LbLd2, m_, kLocal, at(kOffL + n_)));
        LOCSIM_CO_YIELD(emit_store(in, k1LbSt2, m_, kLocal, at(kOffL + n_)));
      }
      LOCSIM_CO_YIELD(emit_store(in, k1StV, m_, kV, out(p_.v)));
      // path_calc_b2
      for (n_ = nmat - 1; n_ >= 0; --n_) {
        for (i_ = nn - 1; i_ > n_; --i_) {
          LOCSIM_CO_YIELD(emit_load(in, k1B2LdL2a, m_, kLocal, at(kOffL2 + i_ + (n_ + 1) * nn)));
          LOCSIM_CO_YIELD(emit_load(in, k1B2LdLb, m_, kLocal, at(kOffL + i_)));
          LOCSIM_CO_YIELD(emit_load(in, k1B2LdL2b, m_, kLocal, at(kOffL2 + i_ + n_ * nn)));
          LOCSIM_CO_YIELD(emit_compute(in, k1B2C, m_, 10, 2 * kAluLatency));
          LOCSIM_CO_YIELD(emit_store(in, k1B2StLb, m_, kLocal, at(kOffL + i_)));
        }
      }
      LOCSIM_CO_YIELD(emit_load(in, k1LdLast, m_, kLocal, at(kOffL + nn - 1)));
      LOCSIM_CO_YIELD(emit_store(in, k1StLb, m_, kLb, out(p_.lb)));
    }
    LOCSIM_CO_YIELD(emit_exit(in, k1Exit, w_.live_mask()));
    LOCSIM_CO_END;
  }
};

// The host-side float replay of path_calc_b1 + portfolio_b's B/S for the swapval signs.
std::uint32_t swap_signs() {
  const float delta = 0.25f, lam = 0.2f, z = 0.3f;
  float L[kNN];
  std::fill(L, L + kNN, 0.05f);
  for (std::uint32_t n = 0; n < kNmat; ++n) {
    const float sqez = std::sqrt(delta) * z;
    float v = 0;
    for (std::uint32_t i = n + 1; i < kNN; ++i) {
      const float con1 = delta * lam;
      v += con1 * L[i] / (1.0f + delta * L[i]);
      L[i] = L[i] * std::exp(con1 * v + lam * (sqez - 0.5f * con1));
    }
  }
  float B[kNmat], S[kNmat], b = 1, s = 0;
  for (std::uint32_t m = 0; m < kNN - kNmat; ++m) {
    b = b / (1.0f + delta * L[m + kNmat]);
    s = s + delta * b;
    B[m] = b;
    S[m] = s;
  }
  std::uint32_t bits = 0;
  for (std::uint32_t n = 0; n < kNopt; ++n) {
    const std::uint32_t m = kMaturities[n] - 1;
    if (B[m] + kSwaprates[n] * S[m] - 1.0f < 0) bits |= 1u << n;
  }
  return bits;
}

WorkloadParamDecls params() {
  return {{"npath", {"256", "Monte Carlo paths (NPATH; the original uses 4096)"}},
          {"ctas", {"64", "grid size (GRID_SIZE; threads loop grid-stride over the paths)"}}};
}

std::unique_ptr<Workload> make_libor(const WorkloadArgs& args) {
  WorkloadArgReader r("libor", params(), args);
  LiborParams p;
  p.npath = r.get_u32("npath", {1, 1u << 20, 1, ""});
  const std::uint32_t ctas = r.get_u32("ctas", {1, 65535, 1, ""});
  p.threads = ctas * kBlock;
  p.swap_neg = swap_signs();
  DeviceAllocator alloc;
  const std::uint64_t local_bytes = std::uint64_t{p.threads} * kWords * 4;
  const std::uint64_t path_bytes = std::uint64_t{p.npath} * 4;
  p.local = alloc.alloc(local_bytes);
  p.v = alloc.alloc(path_bytes);
  p.lb = alloc.alloc(path_bytes);
  std::vector<std::unique_ptr<Kernel>> ks;
  for (int k = 0; k < 2; ++k) {
    // Seed 000 Table 2: INTRA-THREAD. Each thread re-reads and rewrites its private local
    // arrays (D-Tile: its kWords words); d_v and d_Lb are written once per path.
    std::vector<DataStructure> data = {{"local (L, L2, z, B, S, B_b, S_b)",
                                        p.local,
                                        local_bytes,
                                        4,
                                        {intra_thread({kWords, 1, 1})}},
                                       {"d_v", p.v, path_bytes, 4, {no_reuse()}},
                                       {"d_Lb", p.lb, path_bytes, 4, {no_reuse()}}};
    KernelShape shape;
    shape.grid = {ctas, 1, 1};
    shape.block = {kBlock, 1, 1};
    shape.regs_per_thread = 32;
    if (k == 0) {
      shape.name = "Pathcalc_Portfolio_KernelGPU2";
      ks.push_back(make_grid_kernel<Kernel2Stream>(std::move(shape), std::move(data), p));
    } else {
      shape.name = "Pathcalc_Portfolio_KernelGPU";
      ks.push_back(make_grid_kernel<Kernel1Stream>(std::move(shape), std::move(data), p));
    }
  }
  return std::make_unique<KernelListWorkload>("libor",
                                              "LIBOR Monte Carlo swaption portfolio, " +
                                                  std::to_string(p.npath) + " paths, " +
                                                  std::to_string(ctas) + " CTAs x 64 threads",
                                              std::move(ks));
}

}  // namespace

WorkloadInfo libor_workload() {
  return {"libor",
          "CUDA SDK",
          "LIBOR market-model Monte Carlo, per-thread path arrays in local memory (+ adjoint)",
          "256 paths, 64 CTAs x 64 threads",
          params(),
          make_libor};
}

}  // namespace locsim
