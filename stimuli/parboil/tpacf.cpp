// Parboil tpacf (two-point angular correlation function, CUDA base version), gen_hists:
// grid NUM_SETS*2 + 1 (201 for the 100 random sets: PAVER Table 2's 201 TBs), BLOCK_SIZE = 256
// threads, NUM_BINS = 20, NUM_HISTOGRAMS = 8 warps * 16 = 128 (two threads per histogram).
// The points of set s (s = 0: observed data, 1..NUM_SETS: random sets) are x/y/z[s*N + p] in three
// planes of one allocation. CTA bx < NUM_SETS+1 correlates set bx with itself (do_self), CTA
// NUM_SETS+1+r set 0 with random set r+1:
//   warp_hists[20][128] = 0;                                      // 10 strided shared stores
//   for (i = 0; i < N; i += 256) {
//     if (tid+i < N) data_s[tid] = {data_x[tid+i], data_y[tid+i], data_z[tid+i]};  __syncthreads();
//     for (j = do_self ? i+1 : 0; j < N; j += 256) {
//       if (tid+j < N) r = {random_x[tid+j], random_y[tid+j], random_z[tid+j]};
//       for (k = 0; k < 256 && k+i < N; k++) {
//         d = dot(data_s[k], r);  binary search of d in dev_binb[21] -> bin;
//         if (d in range && (!do_self || tid+j > i+k) && tid+j < N)
//           atomicAdd(&warp_hists[bin][tid/2], 1);                // shared atomic
//   } } }
//   tree reduction of the 128 histograms per bin (offset 64..1, 4 bins per step, __syncthreads);
//   if (tid < 20) histograms[20*bx + tid] = warp_hists[tid][0];  // hist_t = unsigned long
// The points are a seeded uniform sample of the unit sphere (Parboil reads sky catalogues), kept on
// the host so each lane's bin and atomic predicate are known; the shared atomicAdd is modelled as
// a shared load and a shared store of the bin counter (the builder has no shared atomic).
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "model/params.h"
#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo tpacf_workload();

namespace {

constexpr std::uint32_t kBlock = 256, kBins = 20, kHists = 128;
constexpr Addr kDataS = 0;                // __shared__ struct cartesian data_s[256]
constexpr Addr kWarpHists = kBlock * 12;  // __shared__ unsigned warp_hists[20][128]
constexpr std::uint32_t kSharedBytes = kBlock * 12 + kBins * kHists * 4;
enum : std::uint16_t { kXyz, kHist };

enum : std::uint32_t {
  kPcZero = 0x000,
  kPcSetup = 0x008,
  kPcLdData = 0x010,   // + 0x08 * c (x, y, z)
  kPcStsData = 0x028,  // + 0x08 * c
  kPcBar0 = 0x040,
  kPcLdRand = 0x048,   // + 0x08 * c
  kPcLdsData = 0x060,  // + 0x08 * c
  kPcBin = 0x078,
  kPcAtomLd = 0x080,
  kPcAtomSt = 0x088,
  kPcLoopK = 0x090,
  kPcBarRed = 0x098,
  kPcRedLd = 0x0a0,  // + 0x08 * h
  kPcRedAdd = 0x0b0,
  kPcRedSt = 0x0b8,
  kPcBar1 = 0x0c0,
  kPcOutLd = 0x0c8,
  kPcOutSt = 0x0d0,
  kPcExit = 0x0d8
};

struct Points {
  std::vector<float> x, y, z;  // (sets+1) * n each
  float binb[kBins + 1];
};

struct TpacfParams {
  std::uint32_t sets = 0, n = 0;
  std::shared_ptr<const Points> pts;
  Addr xyz = 0, hist = 0;
  std::uint64_t plane() const { return std::uint64_t{sets + 1} * n; }
};

class GenHistsStream final : public CoroutineStream {
 public:
  GenHistsStream(const WarpContext& w, const TpacfParams& p) : w_(w), p_(p) {
    const std::uint32_t bx = w.block_idx().x;
    self_ = bx < p.sets + 1;
    data_set_ = self_ ? bx : 0;
    rand_set_ = self_ ? bx : bx - p.sets;
  }

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    for (i_ = 0; i_ < kBins * kHists; i_ += kBlock) {
      LOCSIM_CO_YIELD(emit_shared_store(
          in, kPcZero, all, [this](unsigned l) { return kWarpHists + 4 * (i_ + tid(l)); }));
    }
    LOCSIM_CO_YIELD(emit_compute(in, kPcSetup, all, 6, kAluLatency));
    for (i_ = 0; i_ < p_.n; i_ += kBlock) {
      mask_ = w_.lanes_where([this](unsigned l) { return tid(l) + i_ < p_.n; });
      if (mask_) {
        for (c_ = 0; c_ < 3; ++c_)
          LOCSIM_CO_YIELD(emit_load(in, kPcLdData + 0x08 * c_, mask_, kXyz, [this](unsigned l) {
            return point_addr(data_set_, tid(l) + i_);
          }));
        for (c_ = 0; c_ < 3; ++c_)
          LOCSIM_CO_YIELD(emit_shared_store(in, kPcStsData + 0x08 * c_, mask_, [this](unsigned l) {
            return kDataS + 12 * Addr{tid(l)} + 4 * c_;
          }));
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBar0, all));
      for (j_ = self_ ? i_ + 1 : 0; j_ < p_.n; j_ += kBlock) {
        mask_ = w_.lanes_where([this](unsigned l) { return tid(l) + j_ < p_.n; });
        if (mask_) {
          for (c_ = 0; c_ < 3; ++c_)
            LOCSIM_CO_YIELD(emit_load(in, kPcLdRand + 0x08 * c_, mask_, kXyz, [this](unsigned l) {
              return point_addr(rand_set_, tid(l) + j_);
            }));
        }
        for (k_ = 0; k_ < kBlock && k_ + i_ < p_.n; ++k_) {
          for (c_ = 0; c_ < 3; ++c_)
            LOCSIM_CO_YIELD(emit_shared_load(in, kPcLdsData + 0x08 * c_, all, [this](unsigned) {
              return kDataS + 12 * k_ + 4 * c_;
            }));
          // 3 FMAs, ~5 binary-search steps of 4 instructions, the 5-term predicate
          LOCSIM_CO_YIELD(emit_compute(in, kPcBin, all, 31, kAluLatency));
          mask_ = hits();
          if (mask_) {
            LOCSIM_CO_YIELD(
                emit_shared_load(in, kPcAtomLd, mask_, [this](unsigned l) { return counter(l); }));
            LOCSIM_CO_YIELD(
                emit_shared_store(in, kPcAtomSt, mask_, [this](unsigned l) { return counter(l); }));
          }
          LOCSIM_CO_YIELD(emit_compute(in, kPcLoopK, all, 2, kAluLatency));
        }
      }
    }
    // warp_index = tid & 63, bin_index = tid / 64: four bins per step
    for (off_ = kHists / 2; off_ > 0; off_ >>= 1) {
      for (j_ = 0; j_ < kBins; j_ += kBlock / (kHists / 2)) {
        LOCSIM_CO_YIELD(emit_barrier(in, kPcBarRed, all));
        mask_ = w_.lanes_where(
            [this](unsigned l) { return (tid(l) & 63) < off_ && j_ + tid(l) / 64 < kBins; });
        if (mask_) {
          for (c_ = 0; c_ < 2; ++c_)
            LOCSIM_CO_YIELD(emit_shared_load(in, kPcRedLd + 0x08 * c_, mask_, [this](unsigned l) {
              return red_addr(l) + 4 * (c_ ? off_ : 0);
            }));
          LOCSIM_CO_YIELD(emit_compute(in, kPcRedAdd, mask_, 1, kAluLatency));
          LOCSIM_CO_YIELD(
              emit_shared_store(in, kPcRedSt, mask_, [this](unsigned l) { return red_addr(l); }));
        }
      }
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcBar1, all));
    mask_ = w_.lanes_where([this](unsigned l) { return tid(l) < kBins; });
    if (mask_) {
      LOCSIM_CO_YIELD(emit_shared_load(in, kPcOutLd, mask_, [this](unsigned l) {
        return kWarpHists + 4 * Addr{tid(l)} * kHists;
      }));
      LOCSIM_CO_YIELD(emit_store(
          in, kPcOutSt, mask_, kHist,
          [this](unsigned l) { return p_.hist + 8 * (std::uint64_t{kBins} * w_.cta() + tid(l)); },
          8));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, all));
    LOCSIM_CO_END;
  }

 private:
  std::uint32_t tid(unsigned l) const { return w_.thread_idx(l).x; }
  // Coordinate c_ (x, y, z plane) of point p of set s.
  Addr point_addr(std::uint32_t s, std::uint32_t p) const {
    return p_.xyz + 4 * (c_ * p_.plane() + std::uint64_t{s} * p_.n + p);
  }
  std::uint64_t host_index(std::uint32_t s, std::uint32_t p) const {
    return std::uint64_t{s} * p_.n + p;
  }
  // The lanes whose pair (data point i+k, random point tid+j) falls in a bin, and their bins.
  std::uint32_t hits() {
    const Points& pt = *p_.pts;
    const std::uint64_t d = host_index(data_set_, i_ + k_);
    std::uint32_t m = 0;
    for (unsigned l = 0; l < kLanesPerWarp; ++l) {
      if (!((w_.live_mask() >> l) & 1u)) continue;
      const std::uint32_t r = tid(l) + j_;
      if (r >= p_.n || (self_ && r <= i_ + k_)) continue;
      const std::uint64_t q = host_index(rand_set_, r);
      const float dist = pt.x[d] * pt.x[q] + pt.y[d] * pt.y[q] + pt.z[d] * pt.z[q];
      std::uint32_t lo = 0, hi = kBins;
      while (hi > lo + 1) {
        const std::uint32_t mid = (lo + hi) / 2;
        if (dist >= pt.binb[mid])
          hi = mid;
        else
          lo = mid;
      }
      if (dist < pt.binb[lo] && dist >= pt.binb[hi]) {
        m |= 1u << l;
        bin_[l] = hi - 1;
      }
    }
    return m;
  }
  Addr counter(unsigned l) const { return kWarpHists + 4 * (Addr{bin_[l]} * kHists + tid(l) / 2); }
  Addr red_addr(unsigned l) const {
    return kWarpHists + 4 * (Addr{j_ + tid(l) / 64} * kHists + (tid(l) & 63));
  }

  WarpContext w_;
  TpacfParams p_;
  bool self_ = false;
  std::uint32_t data_set_ = 0, rand_set_ = 0;
  std::uint32_t i_ = 0, j_ = 0, k_ = 0, c_ = 0, off_ = 0, mask_ = 0;
  std::uint32_t bin_[kLanesPerWarp] = {};
};

std::shared_ptr<const Points> make_points(std::uint32_t sets, std::uint32_t n, std::uint32_t seed) {
  auto pts = std::make_shared<Points>();
  const std::size_t total = std::size_t{sets + 1} * n;
  pts->x.resize(total);
  pts->y.resize(total);
  pts->z.resize(total);
  std::uint64_t s = 0x9E3779B97F4A7C15ull ^ seed;
  auto uniform = [&s] {  // splitmix64 -> [0, 1)
    s += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<double>((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0);
  };
  const double kPi = 3.14159265358979323846;
  for (std::size_t i = 0; i < total; ++i) {  // uniform on the unit sphere
    const double zc = 2 * uniform() - 1, phi = 2 * kPi * uniform(), r = std::sqrt(1 - zc * zc);
    pts->x[i] = static_cast<float>(r * std::cos(phi));
    pts->y[i] = static_cast<float>(r * std::sin(phi));
    pts->z[i] = static_cast<float>(zc);
  }
  // Parboil's initBinB: min_arcmin = 1, bins_per_dec = 5, angles in arc minutes.
  for (std::uint32_t k = 0; k <= kBins; ++k)
    pts->binb[k] = static_cast<float>(std::cos(std::pow(10.0, k / 5.0) / 60.0 * kPi / 180.0));
  return pts;
}

WorkloadParamDecls params() {
  return {{"sets", {"100", "random sets NUM_SETS (grid = 2*sets + 1 CTAs)"}},
          {"points", {"487", "points per set NUM_ELEMENTS"}},
          {"seed", {"1", "seed of the point positions"}}};
}

std::unique_ptr<Workload> make_tpacf(const WorkloadArgs& args) {
  WorkloadArgReader r("tpacf", params(), args);
  TpacfParams p;
  p.sets = r.get_u32("sets", {1, 10000, 1, ""});
  p.n = r.get_u32("points", {1, 1u << 20, 1, ""});
  const std::uint32_t seed = r.get_u32("seed", {});
  if (std::uint64_t{p.sets + 1} * p.n > (1u << 24))
    throw ConfigError("workload 'tpacf': parameters 'sets' and 'points': (sets+1)*points = " +
                      std::to_string(std::uint64_t{p.sets + 1} * p.n) +
                      " (must be at most 16777216 points)");
  p.pts = make_points(p.sets, p.n, seed);
  const std::uint32_t ctas = 2 * p.sets + 1;
  const std::uint64_t xyz_bytes = 3 * p.plane() * 4;
  const std::uint64_t hist_bytes = std::uint64_t{kBins} * ctas * 8;
  DeviceAllocator alloc;
  p.xyz = alloc.alloc(xyz_bytes);
  p.hist = alloc.alloc(hist_bytes);
  // xyz: set 0 is read by CTA 0 and by all NUM_SETS data-random CTAs, random set s by CTAs s and
  // NUM_SETS+s: INTER-THREAD (COACCESSED, REGULAR), one set (N points) per D-Tile; this
  // interleaved sharing is written as one C-Tile for the whole grid (seed 000 R0.6 merging,
  // as the 1:1 C-Tile/D-Tile map cannot express it). Within a CTA
  // the random points are re-read for every 256-point chunk of data points. histograms: written
  // once: NO-REUSE.
  std::vector<DataStructure> data = {{"d_xyz_data",
                                      p.xyz,
                                      xyz_bytes,
                                      4,
                                      {inter_thread(SharingType::CoAccessed, AccessPattern::Regular,
                                                    {p.n, 1, 1}, {0, 0, 0}, {0, 0, 0})}},
                                     {"d_hists", p.hist, hist_bytes, 8, {no_reuse()}}};
  KernelShape shape;
  shape.name = "gen_hists";
  shape.grid = {ctas, 1, 1};
  shape.block = {kBlock, 1, 1};
  shape.regs_per_thread = 18;
  shape.shared_mem_bytes = kSharedBytes;
  std::vector<std::unique_ptr<Kernel>> ks;
  ks.push_back(make_grid_kernel<GenHistsStream>(std::move(shape), std::move(data), p));
  return std::make_unique<KernelListWorkload>(
      "tpacf",
      "Parboil tpacf gen_hists, " + std::to_string(p.sets) + " random sets of " +
          std::to_string(p.n) + " points (" + std::to_string(ctas) + " CTAs), 20 angular bins",
      std::move(ks));
}

}  // namespace

WorkloadInfo tpacf_workload() {
  return {"tpacf",
          "Parboil",
          "two-point angular correlation: per CTA, histogram of the pair angles of two point sets",
          "sets=100, points=487 (201 CTAs)",
          params(),
          make_tpacf,
          // PAVER Table 2: 201 TBs = 2 * 100 random sets + 1.
          {{"paver", {{"sets", "100"}, {"points", "487"}}}}};
}

}  // namespace locsim
