// Rodinia particlefilter, float version (cuda/particlefilter/ex_particle_CUDA_float_seq.cu). The
// host tracks an object through a 128 x 128 video of `frames` frames (I[x*IszY*Nfr + y*Nfr + k],
// unsigned char) with `particles` particles; for k = 1 .. Nfr-1 it launches, each with
// ceil(N/512) CTAs of 512 threads (threads_per_block), i = blockDim.x*blockIdx.x + threadIdx.x:
//   likelihood_kernel: if (i < N) { arrayX[i] = xj[i]; arrayY[i] = yj[i]; weights[i] = 1/N;
//       arrayX[i] += 1 + 5*d_randn(seed, i); arrayY[i] += -2 + 2*d_randn(seed, i); }
//     __syncthreads();
//     if (i < N) { for (y < countOnes) ind[i*countOnes+y] = abs(indX*IszY*Nfr + indY*Nfr + k)
//                    (indX = round(arrayX[i]) + objxy[2y+1], indY = round(arrayY[i]) + objxy[2y],
//                     0 if >= max_size);
//                  likelihood[i] = sum_x f(I[ind[i*countOnes+x]]) / countOnes;
//                  weights[i] = weights[i]*exp(likelihood[i]); }
//     buffer[tx] = 0; sync; if (i < N) buffer[tx] = weights[i]; sync;
//     for (s = 256; s > 0; s >>= 1) { if (tx < s) buffer[tx] += buffer[tx+s]; sync; }
//     if (tx == 0) partial_sums[bx] = buffer[0]; sync;
//   sum_kernel: if (i == 0) { for (x < num_blocks) sum += partial_sums[x]; partial_sums[0] = sum; }
//   normalize_weights_kernel: if (tx == 0) sumWeights = partial_sums[0]; sync;
//     if (i < N) weights[i] /= sumWeights; sync;
//     if (i == 0) { cdfCalc(CDF, weights, N); u[0] = d_randu(seed, 0)/N; } sync;
//     if (tx == 0) u1 = u[0]; sync;  if (i < N) u[i] = u1 + i/N;
//   find_index_kernel: if (i < N) { for (x < N) if (CDF[x] >= u[i]) { index = x; break; }
//     xj[i] = arrayX[index]; yj[i] = arrayY[index]; } sync;
// The particle motion (d_randu/d_randn with a fixed seed), the likelihoods and the resampling that
// decide ind[], the I addresses and the find_index loop lengths are computed on the host.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "model/params.h"
#include "stimuli/builtin_workloads.h"
#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo particlefilter_workload();

namespace {

constexpr std::uint32_t kThreads = 512;  // threads_per_block
constexpr std::int32_t kIszX = 128, kIszY = 128;
constexpr int kRadius = 5;  // strelDisk(disk, 5): 9 x 9 disk
enum : std::uint16_t {
  kArrayX,
  kArrayY,
  kXj,
  kYj,
  kCdf,
  kU,
  kLikelihood,
  kWeights,
  kI,
  kObjxy,
  kInd,
  kSeed,
  kPartial
};

enum : std::uint32_t {
  // likelihood_kernel
  kPcLdXj = 0x000,
  kPcStAx0 = 0x008,
  kPcLdYj = 0x010,
  kPcStAy0 = 0x018,
  kPcStW0 = 0x020,
  kPcLdSeed = 0x028,  // + 0x18*r for the four inlined d_randu calls
  kPcRandu = 0x030,
  kPcStSeed = 0x038,
  kPcRandn = 0x088,  // + 0x10*axis
  kPcStAx = 0x090,
  kPcStAy = 0x0a0,
  kPcBar0 = 0x0a8,
  kPcLdObj1 = 0x0b0,
  kPcLdObj0 = 0x0b8,
  kPcInd = 0x0c0,
  kPcStInd = 0x0c8,
  kPcLdInd = 0x0d0,
  kPcLdI = 0x0d8,
  kPcLik = 0x0e0,
  kPcDiv = 0x0e8,
  kPcStLik = 0x0f0,
  kPcLdW = 0x0f8,
  kPcExp = 0x100,
  kPcStW = 0x108,
  kPcStsZero = 0x110,
  kPcBar1 = 0x118,
  kPcLdW2 = 0x120,
  kPcStsW = 0x128,
  kPcBar2 = 0x130,
  kPcLdsA = 0x138,
  kPcLdsB = 0x140,
  kPcAdd = 0x148,
  kPcStsSum = 0x150,
  kPcBar3 = 0x158,
  kPcLdsRes = 0x160,
  kPcStPartial = 0x168,
  kPcBar4 = 0x170,
  kPcExitL = 0x178,
  // sum_kernel
  kPcSumLd = 0x200,
  kPcSumAdd = 0x208,
  kPcSumSt = 0x210,
  kPcExitS = 0x218,
  // normalize_weights_kernel
  kPcNLdPartial = 0x300,
  kPcNStsSum = 0x308,
  kPcNBar0 = 0x310,
  kPcNLdW = 0x318,
  kPcNLdsSum = 0x320,
  kPcNDiv = 0x328,
  kPcNStW = 0x330,
  kPcNBar1 = 0x338,
  kPcNLdW0 = 0x340,
  kPcNStCdf0 = 0x348,
  kPcNLdWx = 0x350,
  kPcNAdd = 0x358,
  kPcNStCdf = 0x360,
  kPcNLdSeed = 0x368,
  kPcNRandu = 0x370,
  kPcNStSeed = 0x378,
  kPcNStU0 = 0x380,
  kPcNBar2 = 0x388,
  kPcNLdU0 = 0x390,
  kPcNStsU1 = 0x398,
  kPcNBar3 = 0x3a0,
  kPcNLdsU1 = 0x3a8,
  kPcNU = 0x3b0,
  kPcNStU = 0x3b8,
  kPcExitN = 0x3c0,
  // find_index_kernel
  kPcFLdU = 0x400,
  kPcFLdCdf = 0x408,
  kPcFCmp = 0x410,
  kPcFLdAx = 0x418,
  kPcFLdAy = 0x420,
  kPcFStXj = 0x428,
  kPcFStYj = 0x430,
  kPcFBar = 0x438,
  kPcExitF = 0x440
};

// Host-side model of the run, per frame slot f (k = f + 1).
struct PfHost {
  std::vector<std::int32_t> objxy;             // getneighbors(): {dy, dx} pairs
  std::vector<std::vector<std::int32_t>> rx;   // [f][i] dev_round(arrayX[i]) after the motion
  std::vector<std::vector<std::int32_t>> ry;   // [f][i] dev_round(arrayY[i])
  std::vector<std::vector<std::uint32_t>> ix;  // [f][i] find_index result
  std::vector<std::vector<bool>> found;        // [f][i] CDF[x] >= u[i] for some x
  std::uint32_t count_ones() const { return static_cast<std::uint32_t>(objxy.size() / 2); }
};

struct PfParams {
  std::uint32_t n = 0, frames = 0, blocks = 0;
  std::uint32_t f = 0;  // frame slot; k = f + 1
  std::shared_ptr<const PfHost> host;
  Addr base[13] = {};
  Addr at(std::uint16_t ds, std::uint64_t byte_off) const { return base[ds] + byte_off; }
};

class PfStream : public CoroutineStream {
 protected:
  PfStream(const WarpContext& w, const PfParams& p) : w_(w), p_(p) {
    body_ = w.lanes_where([&](unsigned l) { return i(l) < p.n; });
    tx0_ = w.lanes_where([&](unsigned l) { return w.thread_idx(l).x == 0; });
    i0_ = w.lanes_where([&](unsigned l) { return i(l) == 0; });
  }
  std::uint64_t i(unsigned l) const { return w_.global_x(l); }
  std::uint64_t tx(unsigned l) const { return w_.thread_idx(l).x; }
  Addr f4(std::uint16_t ds, std::uint64_t idx) const { return p_.at(ds, 4 * idx); }

  WarpContext w_;
  PfParams p_;
  std::uint32_t body_ = 0, tx0_ = 0, i0_ = 0;
};

class LikelihoodStream final : public PfStream {
 public:
  LikelihoodStream(const WarpContext& w, const PfParams& p) : PfStream(w, p) {}

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    if (body_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcLdXj, body_, kXj, [this](unsigned l) { return g(kXj, l); }));
      LOCSIM_CO_YIELD(
          emit_store(in, kPcStAx0, body_, kArrayX, [this](unsigned l) { return g(kArrayX, l); }));
      LOCSIM_CO_YIELD(emit_load(in, kPcLdYj, body_, kYj, [this](unsigned l) { return g(kYj, l); }));
      LOCSIM_CO_YIELD(
          emit_store(in, kPcStAy0, body_, kArrayY, [this](unsigned l) { return g(kArrayY, l); }));
      LOCSIM_CO_YIELD(
          emit_store(in, kPcStW0, body_, kWeights, [this](unsigned l) { return g(kWeights, l); }));
      // Two d_randn per particle, each two inlined d_randu: seed[i] read, LCG, seed[i] written.
      for (r_ = 0; r_ < 4; ++r_) {
        LOCSIM_CO_YIELD(emit_load(in, kPcLdSeed + 0x18 * r_, body_, kSeed,
                                  [this](unsigned l) { return g(kSeed, l); }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcRandu + 0x18 * r_, body_, 6, kAluLatency));
        LOCSIM_CO_YIELD(emit_store(in, kPcStSeed + 0x18 * r_, body_, kSeed,
                                   [this](unsigned l) { return g(kSeed, l); }));
        if (r_ % 2 == 1) {  // Box-Muller (log, sqrt, cos), then arrayX/arrayY += ...
          LOCSIM_CO_YIELD(emit_compute(in, kPcRandn + 0x10 * (r_ / 2), body_, 12, kAluLatency));
          LOCSIM_CO_YIELD(
              emit_store(in, r_ == 1 ? kPcStAx : kPcStAy, body_, r_ == 1 ? kArrayX : kArrayY,
                         [this](unsigned l) { return g(r_ == 1 ? kArrayX : kArrayY, l); }));
        }
      }
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcBar0, all));
    if (body_) {
      for (y_ = 0; y_ < p_.host->count_ones(); ++y_) {
        LOCSIM_CO_YIELD(emit_load(in, kPcLdObj1, body_, kObjxy,
                                  [this](unsigned) { return f4(kObjxy, 2 * y_ + 1); }));
        LOCSIM_CO_YIELD(emit_load(in, kPcLdObj0, body_, kObjxy,
                                  [this](unsigned) { return f4(kObjxy, 2 * y_); }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcInd, body_, 6, kAluLatency));  // IMAD x2, abs, cmp
        LOCSIM_CO_YIELD(emit_store(in, kPcStInd, body_, kInd, [this](unsigned l) {
          return f4(kInd, i(l) * p_.host->count_ones() + y_);
        }));
      }
      for (y_ = 0; y_ < p_.host->count_ones(); ++y_) {  // calcLikelihoodSum
        LOCSIM_CO_YIELD(emit_load(in, kPcLdInd, body_, kInd, [this](unsigned l) {
          return f4(kInd, i(l) * p_.host->count_ones() + y_);
        }));
        LOCSIM_CO_YIELD(emit_dependent_load(
            in, kPcLdI, body_, kI, [this](unsigned l) { return p_.at(kI, ind(l, y_)); }, 1));
        LOCSIM_CO_YIELD(emit_compute(in, kPcLik, body_, 6, kAluLatency));  // 2 pow, sub, div, add
      }
      LOCSIM_CO_YIELD(emit_compute(in, kPcDiv, body_, 2, kAluLatency));
      LOCSIM_CO_YIELD(emit_store(in, kPcStLik, body_, kLikelihood,
                                 [this](unsigned l) { return g(kLikelihood, l); }));
      LOCSIM_CO_YIELD(
          emit_load(in, kPcLdW, body_, kWeights, [this](unsigned l) { return g(kWeights, l); }));
      LOCSIM_CO_YIELD(emit_compute(in, kPcExp, body_, 4, kAluLatency));  // exp, FMUL
      LOCSIM_CO_YIELD(
          emit_store(in, kPcStW, body_, kWeights, [this](unsigned l) { return g(kWeights, l); }));
    }
    LOCSIM_CO_YIELD(
        emit_shared_store(in, kPcStsZero, all, [this](unsigned l) { return 4 * tx(l); }));
    LOCSIM_CO_YIELD(emit_barrier(in, kPcBar1, all));
    if (body_) {
      LOCSIM_CO_YIELD(
          emit_load(in, kPcLdW2, body_, kWeights, [this](unsigned l) { return g(kWeights, l); }));
      LOCSIM_CO_YIELD(
          emit_shared_store(in, kPcStsW, body_, [this](unsigned l) { return 4 * tx(l); }));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcBar2, all));
    for (s_ = kThreads / 2; s_ > 0; s_ >>= 1) {
      red_ = w_.lanes_where([this](unsigned l) { return tx(l) < s_; });
      if (red_) {
        LOCSIM_CO_YIELD(
            emit_shared_load(in, kPcLdsA, red_, [this](unsigned l) { return 4 * tx(l); }));
        LOCSIM_CO_YIELD(
            emit_shared_load(in, kPcLdsB, red_, [this](unsigned l) { return 4 * (tx(l) + s_); }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcAdd, red_, 1, kAluLatency));
        LOCSIM_CO_YIELD(
            emit_shared_store(in, kPcStsSum, red_, [this](unsigned l) { return 4 * tx(l); }));
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBar3, all));
    }
    if (tx0_) {
      LOCSIM_CO_YIELD(emit_shared_load(in, kPcLdsRes, tx0_, [](unsigned) { return Addr{0}; }));
      LOCSIM_CO_YIELD(emit_store(in, kPcStPartial, tx0_, kPartial,
                                 [this](unsigned) { return f4(kPartial, w_.block_idx().x); }));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcBar4, all));
    LOCSIM_CO_YIELD(emit_exit(in, kPcExitL, all));
    LOCSIM_CO_END;
  }

 private:
  Addr g(std::uint16_t ds, unsigned l) const { return f4(ds, i(l)); }
  // ind[i*countOnes + y] = abs(indX*IszY*Nfr + indY*Nfr + k), 0 if >= max_size.
  std::uint64_t ind(unsigned l, std::uint32_t y) const {
    const auto& h = *p_.host;
    const std::int64_t ix = h.rx[p_.f][i(l)] + h.objxy[2 * y + 1];
    const std::int64_t iy = h.ry[p_.f][i(l)] + h.objxy[2 * y];
    const std::int64_t nfr = p_.frames;
    const std::int64_t v = std::llabs(ix * kIszY * nfr + iy * nfr + (p_.f + 1));
    return v >= std::int64_t{kIszX} * kIszY * nfr ? 0 : static_cast<std::uint64_t>(v);
  }

  std::uint32_t r_ = 0, y_ = 0, s_ = 0, red_ = 0;
};

class SumStream final : public PfStream {
 public:
  SumStream(const WarpContext& w, const PfParams& p) : PfStream(w, p) {}

  bool next(WarpInst& in) override {
    LOCSIM_CO_BEGIN;
    if (i0_) {
      for (x_ = 0; x_ < p_.blocks; ++x_) {
        LOCSIM_CO_YIELD(
            emit_load(in, kPcSumLd, i0_, kPartial, [this](unsigned) { return f4(kPartial, x_); }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcSumAdd, i0_, 1, kAluLatency));
      }
      LOCSIM_CO_YIELD(
          emit_store(in, kPcSumSt, i0_, kPartial, [this](unsigned) { return f4(kPartial, 0); }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExitS, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  std::uint32_t x_ = 0;
};

class NormalizeStream final : public PfStream {
 public:
  NormalizeStream(const WarpContext& w, const PfParams& p) : PfStream(w, p) {}

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    if (tx0_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcNLdPartial, tx0_, kPartial,
                                [this](unsigned) { return f4(kPartial, 0); }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcNStsSum, tx0_, [](unsigned) { return Addr{4}; }));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcNBar0, all));
    if (body_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcNLdW, body_, kWeights,
                                [this](unsigned l) { return f4(kWeights, i(l)); }));
      LOCSIM_CO_YIELD(emit_shared_load(in, kPcNLdsSum, body_, [](unsigned) { return Addr{4}; }));
      LOCSIM_CO_YIELD(emit_compute(in, kPcNDiv, body_, 8, kAluLatency));  // FP32 division
      LOCSIM_CO_YIELD(emit_store(in, kPcNStW, body_, kWeights,
                                 [this](unsigned l) { return f4(kWeights, i(l)); }));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcNBar1, all));
    if (i0_) {  // cdfCalc by thread 0, then u[0] = d_randu(seed, 0)/N
      LOCSIM_CO_YIELD(
          emit_load(in, kPcNLdW0, i0_, kWeights, [this](unsigned) { return f4(kWeights, 0); }));
      LOCSIM_CO_YIELD(
          emit_store(in, kPcNStCdf0, i0_, kCdf, [this](unsigned) { return f4(kCdf, 0); }));
      for (x_ = 1; x_ < p_.n; ++x_) {
        LOCSIM_CO_YIELD(
            emit_load(in, kPcNLdWx, i0_, kWeights, [this](unsigned) { return f4(kWeights, x_); }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcNAdd, i0_, 1, kAluLatency));
        LOCSIM_CO_YIELD(
            emit_store(in, kPcNStCdf, i0_, kCdf, [this](unsigned) { return f4(kCdf, x_); }));
      }
      LOCSIM_CO_YIELD(
          emit_load(in, kPcNLdSeed, i0_, kSeed, [this](unsigned) { return f4(kSeed, 0); }));
      LOCSIM_CO_YIELD(emit_compute(in, kPcNRandu, i0_, 8, kAluLatency));
      LOCSIM_CO_YIELD(
          emit_store(in, kPcNStSeed, i0_, kSeed, [this](unsigned) { return f4(kSeed, 0); }));
      LOCSIM_CO_YIELD(emit_store(in, kPcNStU0, i0_, kU, [this](unsigned) { return f4(kU, 0); }));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcNBar2, all));
    if (tx0_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcNLdU0, tx0_, kU, [this](unsigned) { return f4(kU, 0); }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcNStsU1, tx0_, [](unsigned) { return Addr{0}; }));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcNBar3, all));
    if (body_) {
      LOCSIM_CO_YIELD(emit_shared_load(in, kPcNLdsU1, body_, [](unsigned) { return Addr{0}; }));
      LOCSIM_CO_YIELD(emit_compute(in, kPcNU, body_, 10, kAluLatency));  // I2F, division, FADD
      LOCSIM_CO_YIELD(
          emit_store(in, kPcNStU, body_, kU, [this](unsigned l) { return f4(kU, i(l)); }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExitN, all));
    LOCSIM_CO_END;
  }

 private:
  std::uint32_t x_ = 0;
};

class FindIndexStream final : public PfStream {
 public:
  FindIndexStream(const WarpContext& w, const PfParams& p) : PfStream(w, p) {}

  bool next(WarpInst& in) override {
    LOCSIM_CO_BEGIN;
    if (body_) {
      LOCSIM_CO_YIELD(
          emit_load(in, kPcFLdU, body_, kU, [this](unsigned l) { return f4(kU, i(l)); }));
      // Lane i iterates x = 0 .. index (the break), or all N when no CDF entry reaches u[i].
      for (x_ = 0;; ++x_) {
        scan_ = w_.lanes_where([this](unsigned l) { return i(l) < p_.n && x_ < trips(l); });
        if (!scan_) break;
        LOCSIM_CO_YIELD(
            emit_load(in, kPcFLdCdf, scan_, kCdf, [this](unsigned) { return f4(kCdf, x_); }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcFCmp, scan_, 2, kAluLatency));  // FSETP, branch
      }
      LOCSIM_CO_YIELD(emit_dependent_load(in, kPcFLdAx, body_, kArrayX,
                                          [this](unsigned l) { return f4(kArrayX, index(l)); }));
      LOCSIM_CO_YIELD(emit_load(in, kPcFLdAy, body_, kArrayY,
                                [this](unsigned l) { return f4(kArrayY, index(l)); }));
      LOCSIM_CO_YIELD(
          emit_store(in, kPcFStXj, body_, kXj, [this](unsigned l) { return f4(kXj, i(l)); }));
      LOCSIM_CO_YIELD(
          emit_store(in, kPcFStYj, body_, kYj, [this](unsigned l) { return f4(kYj, i(l)); }));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcFBar, w_.live_mask()));
    LOCSIM_CO_YIELD(emit_exit(in, kPcExitF, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  std::uint32_t index(unsigned l) const { return p_.host->ix[p_.f][i(l)]; }
  std::uint32_t trips(unsigned l) const { return p_.host->found[p_.f][i(l)] ? index(l) + 1 : p_.n; }

  std::uint32_t x_ = 0, scan_ = 0;
};

// d_randu: int num = A*seed[i] + C; seed[i] = num % INT_MAX; return fabs(seed[i]/(float)INT_MAX)
// (32-bit wrap-around as on the GPU).
double randu(std::int32_t& seed) {
  const std::int32_t num =
      static_cast<std::int32_t>(1103515245u * static_cast<std::uint32_t>(seed) + 12345u);
  seed = num % INT_MAX;
  return std::fabs(seed / static_cast<double>(INT_MAX));
}
double randn(std::int32_t& seed) {
  const double u = std::max(randu(seed), 1e-12), v = randu(seed);
  return std::sqrt(-2 * std::log(u)) * std::cos(2 * 3.14159265358979323846 * v);
}
std::uint32_t mix(std::uint64_t v) {  // splitmix64 finaliser: fixed, platform-independent
  v += 0x9e3779b97f4a7c15ull;
  v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ull;
  v = (v ^ (v >> 27)) * 0x94d049bb133111ebull;
  return static_cast<std::uint32_t>((v ^ (v >> 31)) >> 32);
}

// Runs the filter on the host: seeds seed[i] = 24301*i (Rodinia: time(0)*i), the object at
// (|64 + k-1|, |64 - 2(k-1)|) as in videoSequence() (intensity 228 inside the radius-5 disk, 100
// outside, plus a hashed noise in [-8, 8]), likelihoods and resampling in double precision.
std::shared_ptr<PfHost> simulate_host(std::uint32_t n, std::uint32_t nfr) {
  auto h = std::make_shared<PfHost>();
  const int d = 2 * kRadius - 1, c = kRadius - 1;
  for (int x = 0; x < d; ++x)  // strelDisk + getneighbors: {y - center, x - center}
    for (int y = 0; y < d; ++y)
      if (std::sqrt(double((x - c) * (x - c) + (y - c) * (y - c))) < kRadius) {
        h->objxy.push_back(y - c);
        h->objxy.push_back(x - c);
      }
  const std::uint32_t ones = h->count_ones();
  std::vector<std::int32_t> seed(n);
  for (std::uint32_t i = 0; i < n; ++i) seed[i] = static_cast<std::int32_t>(24301u * i);
  std::vector<double> xj(n, kIszY / 2), yj(n, kIszX / 2), ax(n), ay(n), lik(n), cdf(n);
  for (std::uint32_t f = 0; f + 1 < nfr; ++f) {
    const std::int32_t k = static_cast<std::int32_t>(f + 1);
    const std::int64_t ox = std::abs(kIszY / 2 + (k - 1)), oy = std::abs(kIszX / 2 - 2 * (k - 1));
    auto pixel = [&](std::int64_t x, std::int64_t y) {
      const double in = (x - ox) * (x - ox) + (y - oy) * (y - oy) < kRadius * kRadius ? 228 : 100;
      return in + static_cast<double>(mix((std::uint64_t(x) << 32) ^ (y << 8) ^ k) % 17) - 8;
    };
    std::vector<std::int32_t> rx(n), ry(n);
    double best = -1e300;
    for (std::uint32_t i = 0; i < n; ++i) {
      ax[i] = xj[i] + 1.0 + 5.0 * randn(seed[i]);
      ay[i] = yj[i] - 2.0 + 2.0 * randn(seed[i]);
      rx[i] = static_cast<std::int32_t>(ax[i]);  // dev_round_double returns newValue++: (int)v
      ry[i] = static_cast<std::int32_t>(ay[i]);
      double s = 0;
      for (std::uint32_t y = 0; y < ones; ++y) {
        const std::int64_t px = rx[i] + h->objxy[2 * y + 1], py = ry[i] + h->objxy[2 * y];
        const std::int64_t v = std::llabs(px * kIszY * nfr + py * nfr + k);
        const bool out = v >= std::int64_t{kIszX} * kIszY * nfr;
        const double p = out ? pixel(0, 0) : pixel(v / nfr / kIszY, v / nfr % kIszY);
        s += ((p - 100) * (p - 100) - (p - 228) * (p - 228)) / 50.0;
      }
      lik[i] = s / ones;
      best = std::max(best, lik[i]);
    }
    // weights = exp(likelihood)/N normalised; exp(lik - max) avoids the float overflow.
    double sum = 0;
    for (std::uint32_t i = 0; i < n; ++i) sum += std::exp(lik[i] - best);
    double acc = 0;
    for (std::uint32_t i = 0; i < n; ++i) cdf[i] = acc += std::exp(lik[i] - best) / sum;
    const double u1 = randu(seed[0]) / n;
    h->ix.emplace_back(n);
    h->found.emplace_back(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      const double u = u1 + i / static_cast<double>(n);
      const auto it = std::lower_bound(cdf.begin(), cdf.end(), u);  // first CDF[x] >= u
      h->found.back()[i] = it != cdf.end();
      h->ix.back()[i] = it != cdf.end() ? static_cast<std::uint32_t>(it - cdf.begin()) : n - 1;
    }
    for (std::uint32_t i = 0; i < n; ++i) {
      xj[i] = ax[h->ix.back()[i]];
      yj[i] = ay[h->ix.back()[i]];
    }
    h->rx.push_back(std::move(rx));
    h->ry.push_back(std::move(ry));
  }
  return h;
}

WorkloadParamDecls params() {
  return {{"particles", {"1024", "particles Nparticles (one thread each)"}},
          {"frames", {"4", "video frames Nfr (frames-1 rounds of four kernels)"}}};
}

std::unique_ptr<Workload> make_particlefilter(const WorkloadArgs& args) {
  WorkloadArgReader r("particlefilter", params(), args);
  const std::uint32_t n = r.get_u32("particles", {1, 1u << 16, 1, ""});
  const std::uint32_t nfr = r.get_u32("frames", {2, 64, 1, ""});
  PfParams p;
  p.n = n;
  p.frames = nfr;
  p.blocks = (n + kThreads - 1) / kThreads;
  p.host = simulate_host(n, nfr);
  const std::uint32_t ones = p.host->count_ones();
  const std::uint64_t fb = std::uint64_t{n} * 4;
  const std::uint64_t bytes[13] = {fb,
                                   fb,
                                   fb,
                                   fb,
                                   fb,
                                   fb,
                                   fb,
                                   fb,
                                   std::uint64_t{kIszX} * kIszY * nfr,
                                   std::uint64_t{ones} * 2 * 4,
                                   fb * ones,
                                   fb,
                                   std::uint64_t{p.blocks} * 4};
  const char* names[13] = {"arrayX",  "arrayY", "xj",    "yj",  "CDF",  "u",           "likelihood",
                           "weights", "I",      "objxy", "ind", "seed", "partial_sums"};
  DeviceAllocator alloc;
  std::vector<DataStructure> data;
  for (int d = 0; d < 13; ++d) {
    p.base[d] = alloc.alloc(bytes[d]);
    // Seed 000 Table 2: NO-REUSE. Per-particle arrays are touched by their own thread once per
    // kernel; the frame pixels under each particle's disk are read once; CDF/objxy/partial_sums
    // are small broadcast arrays streamed through by every thread.
    data.push_back({names[d], p.base[d], bytes[d], d == kI ? 1u : 4u, {no_reuse()}});
  }
  std::vector<std::unique_ptr<Kernel>> ks;
  auto shape = [&](const char* name, std::uint32_t regs, std::uint32_t smem) {
    KernelShape s;
    s.name = name;
    s.grid = {p.blocks, 1, 1};
    s.block = {kThreads, 1, 1};
    s.regs_per_thread = regs;
    s.shared_mem_bytes = smem;
    return s;
  };
  for (std::uint32_t f = 0; f + 1 < nfr; ++f) {
    p.f = f;
    ks.push_back(
        make_grid_kernel<LikelihoodStream>(shape("likelihood_kernel", 24, kThreads * 4), data, p));
    ks.push_back(make_grid_kernel<SumStream>(shape("sum_kernel", 10, 0), data, p));
    ks.push_back(
        make_grid_kernel<NormalizeStream>(shape("normalize_weights_kernel", 16, 8), data, p));
    ks.push_back(make_grid_kernel<FindIndexStream>(shape("find_index_kernel", 14, 0), data, p));
  }
  return std::make_unique<KernelListWorkload>("particlefilter",
                                              "Rodinia particlefilter (float), 128x128x" +
                                                  std::to_string(nfr) + " video, " +
                                                  std::to_string(n) + " particles",
                                              std::move(ks));
}

}  // namespace

WorkloadInfo particlefilter_workload() {
  return {"particlefilter",
          "Rodinia",
          "particle filter tracking: likelihood over a disk, weight normalisation, CDF resampling",
          "particles=1024, frames=4",
          params(),
          make_particlefilter};
}

}  // namespace locsim
