// CUDA SDK mergeSort (samples/6_Advanced/mergeSort: mergeSort.cu, main.cpp), ascending
// (sortDir = 1), SHARED_SIZE_LIMIT = 1024, SAMPLE_STRIDE = 128, keys and values are uints,
// h_SrcVal[i] = i. For a power-of-two N >= 1024 the host runs:
//   mergeSortSharedKernel<<<N/1024, 512>>>(ikey, ival, d_SrcKey, d_SrcVal, 1024);
//   for (stride = 1024; stride < N; stride <<= 1) {
//     generateSampleRanksKernel<<<iDivUp(N/256, 256), 256>>>(d_RanksA, d_RanksB, ikey, stride..);
//     mergeRanksAndIndicesKernel<<<iDivUp(N/256, 256), 256>>>(d_LimitsA, d_RanksA, stride, ..);
//     mergeRanksAndIndicesKernel<<<iDivUp(N/256, 256), 256>>>(d_LimitsB, d_RanksB, stride, ..);
//     mergeElementaryIntervalsKernel<<<N/128, 128>>>(okey, oval, ikey, ival, d_LimitsA, ..);
//     swap(ikey, okey); swap(ival, oval);
//   }
// with ikey = d_BufKey, okey = d_DstKey when the number of merge stages is odd (else the reverse),
// so the result ends in d_DstKey. (For power-of-two N the trailing cudaMemcpy of the unpaired
// last segment copies 0 elements.)
//
// Every binary search (binarySearchExclusive: data[newPos-1] < val, binarySearchInclusive: <=,
// for (; stride > 0; stride >>= 1) newPos = umin(pos + stride, L)) probes data-dependent
// addresses. Keys are generated on the host at workload construction from a fixed seed
// (xorshift64*, key = rand % 65536 as the SDK's rand() % numValues), and the state of the key
// array before each pass is reproduced exactly: before the shared-memory pass of stride s and
// before the global stage of stride s the array is sorted within aligned chunks of s ("level"
// log2 s). The streams replay each search on that host copy, and the ranks and limits arrays
// are computed on the host with the same searches, so every emitted address is the one the CUDA
// code would touch.
#include <algorithm>
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

WorkloadInfo mergesort_workload();

namespace {

constexpr std::uint32_t kShared = 1024, kSample = 128, kMaxSamples = 32768;
// Data structures, the same list (and indices) in every kernel.
enum : std::uint16_t {
  kSrcKey,
  kSrcVal,
  kDstKey,
  kDstVal,
  kBufKey,
  kBufVal,
  kRanksA,
  kRanksB,
  kLimitsA,
  kLimitsB,
  kNumDs
};

// Host copy of everything the searches depend on.
struct Host {
  std::uint32_t n = 0;
  // level[L]: the keys sorted within aligned chunks of 2^L (level 0 = the input).
  std::vector<std::vector<std::uint32_t>> level;
  struct Stage {
    std::uint32_t stride = 0;
    std::vector<std::uint32_t> ranks[2], limits[2];  // [0] = A, [1] = B; N/128 entries
  };
  std::vector<Stage> stages;
};

// binarySearchExclusive (inclusive = false) / binarySearchInclusive on data(0..L-1).
template <class Get>
std::uint32_t search(Get&& data, std::uint32_t val, std::uint32_t len, std::uint32_t stride,
                     bool inclusive) {
  if (len == 0) return 0;
  std::uint32_t pos = 0;
  for (; stride > 0; stride >>= 1) {
    const std::uint32_t np = std::min(pos + stride, len);
    const std::uint32_t d = data(np - 1);
    if (inclusive ? d <= val : d < val) pos = np;
  }
  return pos;
}

std::uint32_t log2u(std::uint32_t x) {
  std::uint32_t l = 0;
  while ((1u << l) < x) ++l;
  return l;
}

struct MsParams {
  std::shared_ptr<const Host> host;
  Addr a[kNumDs] = {};
  std::uint16_t in_key = 0, in_val = 0, out_key = 0, out_val = 0;  // this launch's buffers
  std::uint32_t stage = 0;  // index into Host::stages (global kernels)
  std::uint32_t which = 0;  // mergeRanksAndIndices: 0 = (LimitsA, RanksA), 1 = B
};

// A per-lane binary search replayed one probe per yield: probe(l) gives the index probed by the
// current step, step() applies the comparison.
struct LaneSearch {
  std::uint32_t pos[kLanesPerWarp] = {};
  std::uint32_t np(unsigned l, std::uint32_t stride, std::uint32_t len) const {
    return std::min(pos[l] + stride, len);
  }
};

// ---------------------------------------------------------------------------------------------
// mergeSortSharedKernel<1><<<N/1024, 512>>>, s_key[1024] at 0, s_val[1024] at 4096.
enum : std::uint32_t {
  kPcShLd = 0x000,  // + 0x20 * h: LDG key, STS key, LDG val, STS val
  kPcShBar0 = 0x040,
  kPcShLdsA = 0x048,  // keyA, valA, keyB, valB
  kPcShProbeA = 0x068,
  kPcShCmpA = 0x070,
  kPcShProbeB = 0x078,
  kPcShCmpB = 0x080,
  kPcShBar1 = 0x088,
  kPcShSts = 0x090,  // keyA, valA, keyB, valB at posA / posB
  kPcShBar2 = 0x0b0,
  kPcShSt = 0x0b8,  // + 0x20 * h: LDS key, STG key, LDS val, STG val
  kPcShExit = 0x0f8
};

class SortSharedStream final : public CoroutineStream {
 public:
  SortSharedStream(const WarpContext& w, const MsParams& p) : w_(w), p_(p) {}

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    for (h_ = 0; h_ < 2; ++h_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcShLd + 0x20 * h_, all, p_.in_key,
                                [this](unsigned l) { return gaddr(p_.in_key, l); }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcShLd + 0x20 * h_ + 0x08, all,
                                        [this](unsigned l) { return skey(t(l) + 512 * h_); }));
      LOCSIM_CO_YIELD(emit_load(in, kPcShLd + 0x20 * h_ + 0x10, all, p_.in_val,
                                [this](unsigned l) { return gaddr(p_.in_val, l); }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcShLd + 0x20 * h_ + 0x18, all,
                                        [this](unsigned l) { return sval(t(l) + 512 * h_); }));
    }
    for (s_ = 1; s_ < kShared; s_ <<= 1) {
      lvl_ = &p_.host->level[log2u(s_)];
      LOCSIM_CO_YIELD(emit_barrier(in, kPcShBar0, all));
      LOCSIM_CO_YIELD(emit_shared_load(in, kPcShLdsA, all,
                                       [this](unsigned l) { return skey(base(l) + lpos(l)); }));
      LOCSIM_CO_YIELD(emit_shared_load(in, kPcShLdsA + 0x08, all,
                                       [this](unsigned l) { return sval(base(l) + lpos(l)); }));
      LOCSIM_CO_YIELD(emit_shared_load(
          in, kPcShLdsA + 0x10, all, [this](unsigned l) { return skey(base(l) + lpos(l) + s_); }));
      LOCSIM_CO_YIELD(emit_shared_load(
          in, kPcShLdsA + 0x18, all, [this](unsigned l) { return sval(base(l) + lpos(l) + s_); }));
      // posA = binarySearchExclusive(keyA, baseKey + stride, stride, stride) + lPos
      sa_ = LaneSearch{};
      for (st_ = s_; st_ > 0; st_ >>= 1) {
        LOCSIM_CO_YIELD(emit_shared_load(in, kPcShProbeA, all, [this](unsigned l) {
          return skey(base(l) + s_ + sa_.np(l, st_, s_) - 1);
        }));
        for (unsigned l = 0; l < kLanesPerWarp; ++l) {
          const std::uint32_t np = sa_.np(l, st_, s_);
          if (key(base(l) + s_ + np - 1) < key(base(l) + lpos(l))) sa_.pos[l] = np;
        }
        LOCSIM_CO_YIELD(emit_compute(in, kPcShCmpA, all, 3, kAluLatency));
      }
      // posB = binarySearchInclusive(keyB, baseKey, stride, stride) + lPos
      sb_ = LaneSearch{};
      for (st_ = s_; st_ > 0; st_ >>= 1) {
        LOCSIM_CO_YIELD(emit_shared_load(in, kPcShProbeB, all, [this](unsigned l) {
          return skey(base(l) + sb_.np(l, st_, s_) - 1);
        }));
        for (unsigned l = 0; l < kLanesPerWarp; ++l) {
          const std::uint32_t np = sb_.np(l, st_, s_);
          if (key(base(l) + np - 1) <= key(base(l) + lpos(l) + s_)) sb_.pos[l] = np;
        }
        LOCSIM_CO_YIELD(emit_compute(in, kPcShCmpB, all, 3, kAluLatency));
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcShBar1, all));
      LOCSIM_CO_YIELD(emit_shared_store(
          in, kPcShSts, all, [this](unsigned l) { return skey(base(l) + sa_.pos[l] + lpos(l)); }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcShSts + 0x08, all, [this](unsigned l) {
        return sval(base(l) + sa_.pos[l] + lpos(l));
      }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcShSts + 0x10, all, [this](unsigned l) {
        return skey(base(l) + sb_.pos[l] + lpos(l));
      }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcShSts + 0x18, all, [this](unsigned l) {
        return sval(base(l) + sb_.pos[l] + lpos(l));
      }));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcShBar2, all));
    for (h_ = 0; h_ < 2; ++h_) {
      LOCSIM_CO_YIELD(emit_shared_load(in, kPcShSt + 0x20 * h_, all,
                                       [this](unsigned l) { return skey(t(l) + 512 * h_); }));
      LOCSIM_CO_YIELD(emit_store(in, kPcShSt + 0x20 * h_ + 0x08, all, p_.out_key,
                                 [this](unsigned l) { return gaddr(p_.out_key, l); }));
      LOCSIM_CO_YIELD(emit_shared_load(in, kPcShSt + 0x20 * h_ + 0x10, all,
                                       [this](unsigned l) { return sval(t(l) + 512 * h_); }));
      LOCSIM_CO_YIELD(emit_store(in, kPcShSt + 0x20 * h_ + 0x18, all, p_.out_val,
                                 [this](unsigned l) { return gaddr(p_.out_val, l); }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcShExit, all));
    LOCSIM_CO_END;
  }

 private:
  std::uint32_t t(unsigned l) const { return w_.thread_idx(l).x; }
  std::uint32_t lpos(unsigned l) const { return t(l) & (s_ - 1); }
  std::uint32_t base(unsigned l) const { return 2 * (t(l) - lpos(l)); }
  static Addr skey(std::uint32_t i) { return Addr{4} * i; }
  static Addr sval(std::uint32_t i) { return Addr{4} * (kShared + i); }
  Addr gaddr(std::uint16_t ds, unsigned l) const {
    return p_.a[ds] + 4 * (std::uint64_t{w_.block_idx().x} * kShared + t(l) + 512 * h_);
  }
  // The shared key at index i of this CTA before the current pass.
  std::uint32_t key(std::uint32_t i) const { return (*lvl_)[w_.block_idx().x * kShared + i]; }

  WarpContext w_;
  MsParams p_;
  const std::vector<std::uint32_t>* lvl_ = nullptr;
  LaneSearch sa_, sb_;
  std::uint32_t h_ = 0, s_ = 0, st_ = 0;
};

// ---------------------------------------------------------------------------------------------
// generateSampleRanksKernel<1><<<iDivUp(N/256, 256), 256>>>.
enum : std::uint32_t {
  kPcGrHead = 0x000,
  kPcGrStA = 0x008,  // d_RanksA[i] = i*SAMPLE_STRIDE
  kPcGrLdA = 0x010,  // d_SrcKey[i*SAMPLE_STRIDE]
  kPcGrProbeA = 0x018,
  kPcGrCmpA = 0x020,
  kPcGrStB = 0x028,  // d_RanksB[i] = search
  kPcGrStB2 = 0x030,
  kPcGrLdB = 0x038,
  kPcGrProbeB = 0x040,
  kPcGrCmpB = 0x048,
  kPcGrStA2 = 0x050,
  kPcGrExit = 0x058
};

class SampleRanksStream final : public CoroutineStream {
 public:
  SampleRanksStream(const WarpContext& w, const MsParams& p)
      : w_(w), p_(p), st_(&p.host->stages[p.stage]), lvl_(&p.host->level[log2u(st_->stride)]) {
    const std::uint32_t threads = p.host->n / (2 * kSample);
    act_ = w.lanes_where([&](unsigned l) { return w.global_x(l) < threads; });
  }

  bool next(WarpInst& in) override {
    LOCSIM_CO_BEGIN;
    if (act_) {
      LOCSIM_CO_YIELD(emit_compute(in, kPcGrHead, act_, 8, kAluLatency));
      LOCSIM_CO_YIELD(emit_store(in, kPcGrStA, act_, kRanksA,
                                 [this](unsigned l) { return rank(kRanksA, l, 0); }));
      LOCSIM_CO_YIELD(emit_load(in, kPcGrLdA, act_, p_.in_key,
                                [this](unsigned l) { return src(seg(l) + i(l) * kSample); }));
      // binarySearchExclusive(key, d_SrcKey + stride, stride, stride)
      srch_ = LaneSearch{};
      for (k_ = st_->stride; k_ > 0; k_ >>= 1) {
        LOCSIM_CO_YIELD(emit_load(in, kPcGrProbeA, act_, p_.in_key, [this](unsigned l) {
          return src(seg(l) + st_->stride + srch_.np(l, k_, st_->stride) - 1);
        }));
        step(false);
        LOCSIM_CO_YIELD(emit_compute(in, kPcGrCmpA, act_, 3, kAluLatency));
      }
      LOCSIM_CO_YIELD(emit_store(in, kPcGrStB, act_, kRanksB,
                                 [this](unsigned l) { return rank(kRanksB, l, 0); }));
      LOCSIM_CO_YIELD(emit_store(in, kPcGrStB2, act_, kRanksB,
                                 [this](unsigned l) { return rank(kRanksB, l, samples()); }));
      LOCSIM_CO_YIELD(emit_load(in, kPcGrLdB, act_, p_.in_key, [this](unsigned l) {
        return src(seg(l) + st_->stride + i(l) * kSample);
      }));
      // binarySearchInclusive(key, d_SrcKey, stride, stride)
      srch_ = LaneSearch{};
      for (k_ = st_->stride; k_ > 0; k_ >>= 1) {
        LOCSIM_CO_YIELD(emit_load(in, kPcGrProbeB, act_, p_.in_key, [this](unsigned l) {
          return src(seg(l) + srch_.np(l, k_, st_->stride) - 1);
        }));
        step(true);
        LOCSIM_CO_YIELD(emit_compute(in, kPcGrCmpB, act_, 3, kAluLatency));
      }
      LOCSIM_CO_YIELD(emit_store(in, kPcGrStA2, act_, kRanksA,
                                 [this](unsigned l) { return rank(kRanksA, l, samples()); }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcGrExit, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  std::uint32_t samples() const { return st_->stride / kSample; }
  std::uint32_t i(unsigned l) const {
    return static_cast<std::uint32_t>(w_.global_x(l)) & (samples() - 1);
  }
  std::uint32_t seg(unsigned l) const {
    return (static_cast<std::uint32_t>(w_.global_x(l)) - i(l)) * (2 * kSample);
  }
  Addr src(std::uint64_t idx) const { return p_.a[p_.in_key] + 4 * idx; }
  Addr rank(std::uint16_t ds, unsigned l, std::uint32_t off) const {
    return p_.a[ds] + 4 * (std::uint64_t{seg(l)} / kSample + off + i(l));
  }
  void step(bool inclusive) {
    for (unsigned l = 0; l < kLanesPerWarp; ++l) {
      if (!((act_ >> l) & 1u)) continue;
      const std::uint32_t s = st_->stride, np = srch_.np(l, k_, s);
      const std::uint32_t v =
          inclusive ? (*lvl_)[seg(l) + s + i(l) * kSample] : (*lvl_)[seg(l) + i(l) * kSample];
      const std::uint32_t d = (*lvl_)[seg(l) + (inclusive ? 0 : s) + np - 1];
      if (inclusive ? d <= v : d < v) srch_.pos[l] = np;
    }
  }

  WarpContext w_;
  MsParams p_;
  const Host::Stage* st_;
  const std::vector<std::uint32_t>* lvl_;
  LaneSearch srch_;
  std::uint32_t act_ = 0, k_ = 0;
};

// ---------------------------------------------------------------------------------------------
// mergeRanksAndIndicesKernel<<<iDivUp(N/256, 256), 256>>>(d_Limits, d_Ranks, stride, N, ..).
enum : std::uint32_t {
  kPcMrHead = 0x000,
  kPcMrLdA = 0x008,  // d_Ranks[i]
  kPcMrProbeA = 0x010,
  kPcMrCmpA = 0x018,
  kPcMrStA = 0x020,  // d_Limits[dstPos]
  kPcMrLdB = 0x028,  // d_Ranks[segmentSamplesA + i]
  kPcMrProbeB = 0x030,
  kPcMrCmpB = 0x038,
  kPcMrStB = 0x040,
  kPcMrExit = 0x048
};

class MergeRanksStream final : public CoroutineStream {
 public:
  MergeRanksStream(const WarpContext& w, const MsParams& p)
      : w_(w), p_(p), st_(&p.host->stages[p.stage]), r_(&st_->ranks[p.which]) {
    const std::uint32_t threads = p.host->n / (2 * kSample);
    act_ = w.lanes_where([&](unsigned l) { return w.global_x(l) < threads; });
  }

  bool next(WarpInst& in) override {
    LOCSIM_CO_BEGIN;
    if (act_) {
      LOCSIM_CO_YIELD(emit_compute(in, kPcMrHead, act_, 8, kAluLatency));
      LOCSIM_CO_YIELD(
          emit_load(in, kPcMrLdA, act_, ranks_ds(), [this](unsigned l) { return ra(l, i(l)); }));
      srch_ = LaneSearch{};
      for (k_ = samples(); k_ > 0; k_ >>= 1) {
        LOCSIM_CO_YIELD(emit_load(in, kPcMrProbeA, act_, ranks_ds(), [this](unsigned l) {
          return ra(l, samples() + srch_.np(l, k_, samples()) - 1);
        }));
        step(false);
        LOCSIM_CO_YIELD(emit_compute(in, kPcMrCmpA, act_, 3, kAluLatency));
      }
      LOCSIM_CO_YIELD(emit_store(in, kPcMrStA, act_, limits_ds(),
                                 [this](unsigned l) { return la(l, srch_.pos[l] + i(l)); }));
      LOCSIM_CO_YIELD(emit_load(in, kPcMrLdB, act_, ranks_ds(),
                                [this](unsigned l) { return ra(l, samples() + i(l)); }));
      srch_ = LaneSearch{};
      for (k_ = samples(); k_ > 0; k_ >>= 1) {
        LOCSIM_CO_YIELD(emit_load(in, kPcMrProbeB, act_, ranks_ds(), [this](unsigned l) {
          return ra(l, srch_.np(l, k_, samples()) - 1);
        }));
        step(true);
        LOCSIM_CO_YIELD(emit_compute(in, kPcMrCmpB, act_, 3, kAluLatency));
      }
      LOCSIM_CO_YIELD(emit_store(in, kPcMrStB, act_, limits_ds(),
                                 [this](unsigned l) { return la(l, srch_.pos[l] + i(l)); }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcMrExit, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  std::uint16_t ranks_ds() const { return p_.which ? kRanksB : kRanksA; }
  std::uint16_t limits_ds() const { return p_.which ? kLimitsB : kLimitsA; }
  std::uint32_t samples() const { return st_->stride / kSample; }
  std::uint32_t i(unsigned l) const {
    return static_cast<std::uint32_t>(w_.global_x(l)) & (samples() - 1);
  }
  std::uint32_t off(unsigned l) const {  // (pos - i) * 2
    return (static_cast<std::uint32_t>(w_.global_x(l)) - i(l)) * 2;
  }
  Addr ra(unsigned l, std::uint32_t k) const { return p_.a[ranks_ds()] + 4 * (off(l) + k); }
  Addr la(unsigned l, std::uint32_t k) const { return p_.a[limits_ds()] + 4 * (off(l) + k); }
  void step(bool inclusive) {
    const std::uint32_t s = samples();
    for (unsigned l = 0; l < kLanesPerWarp; ++l) {
      if (!((act_ >> l) & 1u)) continue;
      const std::uint32_t np = srch_.np(l, k_, s);
      const std::uint32_t v = (*r_)[off(l) + (inclusive ? s : 0) + i(l)];
      const std::uint32_t d = (*r_)[off(l) + (inclusive ? 0 : s) + np - 1];
      if (inclusive ? d <= v : d < v) srch_.pos[l] = np;
    }
  }

  WarpContext w_;
  MsParams p_;
  const Host::Stage* st_;
  const std::vector<std::uint32_t>* r_;
  LaneSearch srch_;
  std::uint32_t act_ = 0, k_ = 0;
};

// ---------------------------------------------------------------------------------------------
// mergeElementaryIntervalsKernel<1><<<N/128, 128>>>: s_key[256] at 0, s_val[256] at 1024, the
// six __shared__ scalars startSrcA, startSrcB, lenSrcA, lenSrcB, startDstA, startDstB at 2048.
enum : std::uint32_t {
  kPcMeLim = 0x000,  // + 0x08 * k: LimitsA[bx], LimitsB[bx], LimitsA[bx+1], LimitsB[bx+1]
  kPcMeCalc = 0x020,
  kPcMeSts = 0x028,  // + 0x08 * k: the six scalars
  kPcMeBar0 = 0x058,
  kPcMeLds = 0x060,  // + 0x08 * k: lenSrcA, lenSrcB, startSrcA, startSrcB
  kPcMeLdA = 0x080,  // LDG key, STS, LDG val, STS
  kPcMeLdB = 0x0a0,  // same for B
  kPcMeBar1 = 0x0c0,
  kPcMeMA = 0x0c8,  // LDS keyA, LDS valA
  kPcMeProbeA = 0x0d8,
  kPcMeCmpA = 0x0e0,
  kPcMeMB = 0x0e8,  // LDS keyB, LDS valB
  kPcMeProbeB = 0x0f8,
  kPcMeCmpB = 0x100,
  kPcMeBar2 = 0x108,
  kPcMeStsA = 0x110,  // s_key[dstPosA], s_val[dstPosA]
  kPcMeStsB = 0x120,
  kPcMeBar3 = 0x130,
  kPcMeStA = 0x138,  // LDS key, STG key, LDS val, STG val
  kPcMeStB = 0x158,
  kPcMeExit = 0x178
};

class MergeIntervalsStream final : public CoroutineStream {
 public:
  MergeIntervalsStream(const WarpContext& w, const MsParams& p)
      : w_(w), p_(p), st_(&p.host->stages[p.stage]), lvl_(&p.host->level[log2u(st_->stride)]) {
    const std::uint32_t bx = w.block_idx().x, stride = st_->stride;
    const std::uint32_t samples = 2 * (stride / kSample);
    ival_ = bx & (samples - 1);
    seg_ = (bx - ival_) * kSample;
    last_ = ival_ + 1 >= samples;
    const std::uint32_t sa = st_->limits[0][bx], sb = st_->limits[1][bx];
    const std::uint32_t ea = last_ ? stride : st_->limits[0][bx + 1];
    const std::uint32_t eb = last_ ? stride : st_->limits[1][bx + 1];
    start_a_ = sa;
    start_b_ = sb;
    len_a_ = ea - sa;
    len_b_ = eb - sb;
    ma_ = w.lanes_where([&](unsigned l) { return w.thread_idx(l).x < len_a_; });
    mb_ = w.lanes_where([&](unsigned l) { return w.thread_idx(l).x < len_b_; });
  }

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    if (w_.warp() == 0) {  // threadIdx.x == 0
      for (k_ = 0; k_ < (last_ ? 2u : 4u); ++k_) {
        LOCSIM_CO_YIELD(emit_load(in, kPcMeLim + 0x08 * k_, 1u, (k_ & 1) ? kLimitsB : kLimitsA,
                                  [this](unsigned) {
                                    return p_.a[(k_ & 1) ? kLimitsB : kLimitsA] +
                                           4 * (std::uint64_t{w_.block_idx().x} + k_ / 2);
                                  }));
      }
      LOCSIM_CO_YIELD(emit_compute(in, kPcMeCalc, 1u, 8, kAluLatency));
      for (k_ = 0; k_ < 6; ++k_) {
        LOCSIM_CO_YIELD(emit_shared_store(in, kPcMeSts + 0x08 * k_, 1u,
                                          [this](unsigned) { return kScalars + 4 * k_; }));
      }
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcMeBar0, all));
    for (k_ = 0; k_ < 4; ++k_) {  // lenSrcA (2), lenSrcB (3), startSrcA (0), startSrcB (1)
      LOCSIM_CO_YIELD(emit_shared_load(in, kPcMeLds + 0x08 * k_, all,
                                       [this](unsigned) { return kScalars + 4 * ((k_ + 2) % 4); }));
    }
    if (ma_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcMeLdA, ma_, p_.in_key, [this](unsigned l) {
        return g(p_.in_key, seg_ + start_a_ + t(l));
      }));
      LOCSIM_CO_YIELD(
          emit_shared_store(in, kPcMeLdA + 0x08, ma_, [this](unsigned l) { return sk(t(l)); }));
      LOCSIM_CO_YIELD(emit_load(in, kPcMeLdA + 0x10, ma_, p_.in_val, [this](unsigned l) {
        return g(p_.in_val, seg_ + start_a_ + t(l));
      }));
      LOCSIM_CO_YIELD(
          emit_shared_store(in, kPcMeLdA + 0x18, ma_, [this](unsigned l) { return sv(t(l)); }));
    }
    if (mb_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcMeLdB, mb_, p_.in_key, [this](unsigned l) {
        return g(p_.in_key, seg_ + st_->stride + start_b_ + t(l));
      }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcMeLdB + 0x08, mb_,
                                        [this](unsigned l) { return sk(kSample + t(l)); }));
      LOCSIM_CO_YIELD(emit_load(in, kPcMeLdB + 0x10, mb_, p_.in_val, [this](unsigned l) {
        return g(p_.in_val, seg_ + st_->stride + start_b_ + t(l));
      }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcMeLdB + 0x18, mb_,
                                        [this](unsigned l) { return sv(kSample + t(l)); }));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcMeBar1, all));
    // merge(): dstPosA = binarySearchExclusive(keyA, s_key + 128, lenB, 128) + tx
    sa_ = LaneSearch{};
    if (ma_) {
      LOCSIM_CO_YIELD(emit_shared_load(in, kPcMeMA, ma_, [this](unsigned l) { return sk(t(l)); }));
      LOCSIM_CO_YIELD(
          emit_shared_load(in, kPcMeMA + 0x08, ma_, [this](unsigned l) { return sv(t(l)); }));
      for (k_ = (len_b_ ? kSample : 0); k_ > 0; k_ >>= 1) {
        LOCSIM_CO_YIELD(emit_shared_load(in, kPcMeProbeA, ma_, [this](unsigned l) {
          return sk(kSample + sa_.np(l, k_, len_b_) - 1);
        }));
        for (unsigned l = 0; l < kLanesPerWarp; ++l) {
          if (!((ma_ >> l) & 1u)) continue;
          const std::uint32_t np = sa_.np(l, k_, len_b_);
          if (key_b(np - 1) < key_a(t(l))) sa_.pos[l] = np;
        }
        LOCSIM_CO_YIELD(emit_compute(in, kPcMeCmpA, ma_, 3, kAluLatency));
      }
    }
    // dstPosB = binarySearchInclusive(keyB, s_key, lenA, 128) + tx
    sb_ = LaneSearch{};
    if (mb_) {
      LOCSIM_CO_YIELD(
          emit_shared_load(in, kPcMeMB, mb_, [this](unsigned l) { return sk(kSample + t(l)); }));
      LOCSIM_CO_YIELD(emit_shared_load(in, kPcMeMB + 0x08, mb_,
                                       [this](unsigned l) { return sv(kSample + t(l)); }));
      for (k_ = (len_a_ ? kSample : 0); k_ > 0; k_ >>= 1) {
        LOCSIM_CO_YIELD(emit_shared_load(
            in, kPcMeProbeB, mb_, [this](unsigned l) { return sk(sb_.np(l, k_, len_a_) - 1); }));
        for (unsigned l = 0; l < kLanesPerWarp; ++l) {
          if (!((mb_ >> l) & 1u)) continue;
          const std::uint32_t np = sb_.np(l, k_, len_a_);
          if (key_a(np - 1) <= key_b(t(l))) sb_.pos[l] = np;
        }
        LOCSIM_CO_YIELD(emit_compute(in, kPcMeCmpB, mb_, 3, kAluLatency));
      }
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcMeBar2, all));
    if (ma_) {
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcMeStsA, ma_,
                                        [this](unsigned l) { return sk(sa_.pos[l] + t(l)); }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcMeStsA + 0x08, ma_,
                                        [this](unsigned l) { return sv(sa_.pos[l] + t(l)); }));
    }
    if (mb_) {
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcMeStsB, mb_,
                                        [this](unsigned l) { return sk(sb_.pos[l] + t(l)); }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPcMeStsB + 0x08, mb_,
                                        [this](unsigned l) { return sv(sb_.pos[l] + t(l)); }));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcMeBar3, all));
    if (ma_) {
      LOCSIM_CO_YIELD(emit_shared_load(in, kPcMeStA, ma_, [this](unsigned l) { return sk(t(l)); }));
      LOCSIM_CO_YIELD(emit_store(in, kPcMeStA + 0x08, ma_, p_.out_key, [this](unsigned l) {
        return g(p_.out_key, seg_ + start_a_ + start_b_ + t(l));
      }));
      LOCSIM_CO_YIELD(
          emit_shared_load(in, kPcMeStA + 0x10, ma_, [this](unsigned l) { return sv(t(l)); }));
      LOCSIM_CO_YIELD(emit_store(in, kPcMeStA + 0x18, ma_, p_.out_val, [this](unsigned l) {
        return g(p_.out_val, seg_ + start_a_ + start_b_ + t(l));
      }));
    }
    if (mb_) {
      LOCSIM_CO_YIELD(
          emit_shared_load(in, kPcMeStB, mb_, [this](unsigned l) { return sk(len_a_ + t(l)); }));
      LOCSIM_CO_YIELD(emit_store(in, kPcMeStB + 0x08, mb_, p_.out_key, [this](unsigned l) {
        return g(p_.out_key, seg_ + start_a_ + start_b_ + len_a_ + t(l));
      }));
      LOCSIM_CO_YIELD(emit_shared_load(in, kPcMeStB + 0x10, mb_,
                                       [this](unsigned l) { return sv(len_a_ + t(l)); }));
      LOCSIM_CO_YIELD(emit_store(in, kPcMeStB + 0x18, mb_, p_.out_val, [this](unsigned l) {
        return g(p_.out_val, seg_ + start_a_ + start_b_ + len_a_ + t(l));
      }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcMeExit, all));
    LOCSIM_CO_END;
  }

 private:
  static constexpr Addr kScalars = 2048;
  std::uint32_t t(unsigned l) const { return w_.thread_idx(l).x; }
  static Addr sk(std::uint32_t i) { return Addr{4} * i; }
  static Addr sv(std::uint32_t i) { return Addr{4} * (2 * kSample + i); }
  Addr g(std::uint16_t ds, std::uint64_t idx) const { return p_.a[ds] + 4 * idx; }
  std::uint32_t key_a(std::uint32_t j) const { return (*lvl_)[seg_ + start_a_ + j]; }
  std::uint32_t key_b(std::uint32_t j) const { return (*lvl_)[seg_ + st_->stride + start_b_ + j]; }

  WarpContext w_;
  MsParams p_;
  const Host::Stage* st_;
  const std::vector<std::uint32_t>* lvl_;
  LaneSearch sa_, sb_;
  std::uint32_t ival_ = 0, seg_ = 0, start_a_ = 0, start_b_ = 0, len_a_ = 0, len_b_ = 0;
  std::uint32_t ma_ = 0, mb_ = 0, k_ = 0;
  bool last_ = false;
};

// ---------------------------------------------------------------------------------------------
struct Rng {  // xorshift64*, fixed seed: the same keys on every platform
  std::uint64_t s;
  std::uint32_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return static_cast<std::uint32_t>((s * 0x2545F4914F6CDD1Dull) >> 32);
  }
};

std::shared_ptr<const Host> build_host(std::uint32_t n, std::uint32_t seed) {
  auto h = std::make_shared<Host>();
  h->n = n;
  Rng rng{0x9E3779B97F4A7C15ull ^ seed};
  const std::uint32_t levels = log2u(n);  // levels 0 .. log2(n)-1 are read
  h->level.resize(levels);
  h->level[0].resize(n);
  for (auto& k : h->level[0]) k = rng.next() % 65536;  // SDK: rand() % numValues (65536)
  for (std::uint32_t lv = 1; lv < levels; ++lv) {
    // Merging sorted chunks of 2^(lv-1) pairwise gives sorted chunks of 2^lv.
    h->level[lv] = h->level[lv - 1];
    const std::size_t c = std::size_t{1} << lv;
    for (std::size_t b = 0; b < n; b += c)
      std::inplace_merge(h->level[lv].begin() + b, h->level[lv].begin() + b + c / 2,
                         h->level[lv].begin() + b + c);
  }
  for (std::uint32_t stride = kShared; stride < n; stride <<= 1) {
    Host::Stage st;
    st.stride = stride;
    const auto& lvl = h->level[log2u(stride)];
    const std::uint32_t s = stride / kSample, entries = n / kSample;
    for (int k = 0; k < 2; ++k) {
      st.ranks[k].assign(entries, 0);
      st.limits[k].assign(entries, 0);
    }
    for (std::uint32_t seg = 0; seg < n; seg += 2 * stride) {
      const std::uint32_t o = seg / kSample;
      auto in_a = [&](std::uint32_t j) { return lvl[seg + j]; };
      auto in_b = [&](std::uint32_t j) { return lvl[seg + stride + j]; };
      for (std::uint32_t i = 0; i < s; ++i) {  // generateSampleRanksKernel
        st.ranks[0][o + i] = i * kSample;
        st.ranks[1][o + i] = search(in_b, lvl[seg + i * kSample], stride, stride, false);
        st.ranks[1][o + s + i] = i * kSample;
        st.ranks[0][o + s + i] =
            search(in_a, lvl[seg + stride + i * kSample], stride, stride, true);
      }
      for (int k = 0; k < 2; ++k) {  // mergeRanksAndIndicesKernel (A, then B)
        const auto& r = st.ranks[k];
        auto lo = [&](std::uint32_t j) { return r[o + j]; };
        auto hi = [&](std::uint32_t j) { return r[o + s + j]; };
        for (std::uint32_t i = 0; i < s; ++i) {
          st.limits[k][o + search(hi, r[o + i], s, s, false) + i] = r[o + i];
          st.limits[k][o + search(lo, r[o + s + i], s, s, true) + i] = r[o + s + i];
        }
      }
    }
    h->stages.push_back(std::move(st));
  }
  return h;
}

WorkloadParamDecls params() {
  return {{"n", {"65536", "keys to sort (a power of two, >= 1024 = SHARED_SIZE_LIMIT)"}},
          {"seed", {"12345", "seed of the random keys (fixed, so runs are reproducible)"}}};
}

std::unique_ptr<Workload> make_mergesort(const WorkloadArgs& args) {
  WorkloadArgReader r("mergesort", params(), args);
  // Up to MAX_SAMPLE_COUNT x SAMPLE_STRIDE = 4M keys (the SDK's limit; PAVER's 32768 TBs).
  const std::uint32_t n = r.get_u32("n", {kShared, kMaxSamples * kSample, kShared, ""});
  const std::uint32_t seed = r.get_u32("seed", {0, 0xffffffffu, 1, ""});
  if ((n & (n - 1)) != 0)
    throw ConfigError("workload 'mergesort': parameter 'n': bad value '" + r.text("n") +
                      "' (must be a power of two in [1024, 4194304])");
  MsParams p;
  p.host = build_host(n, seed);
  const std::uint64_t bytes = std::uint64_t{n} * 4, rbytes = std::uint64_t{kMaxSamples} * 4;
  DeviceAllocator alloc;
  for (int d = 0; d < kNumDs; ++d) p.a[d] = alloc.alloc(d < kRanksA ? bytes : rbytes);
  static const char* const kNames[kNumDs] = {"d_SrcKey",  "d_SrcVal", "d_DstKey", "d_DstVal",
                                             "d_BufKey",  "d_BufVal", "d_RanksA", "d_RanksB",
                                             "d_LimitsA", "d_LimitsB"};
  // All ten buffers in every kernel (same indices), NO-REUSE unless the kernel says otherwise.
  auto data_with = [&](std::vector<std::pair<std::uint16_t, LocalityDescriptor>> over) {
    std::vector<DataStructure> v;
    for (std::uint16_t d = 0; d < kNumDs; ++d)
      v.push_back({kNames[d], p.a[d], d < kRanksA ? bytes : rbytes, 4, {no_reuse()}});
    for (auto& o : over) v[o.first].locality = {o.second};
    return v;
  };
  const std::uint32_t stages = static_cast<std::uint32_t>(p.host->stages.size());
  std::uint16_t ikey = (stages & 1) ? kBufKey : kDstKey, ival = (stages & 1) ? kBufVal : kDstVal;
  std::uint16_t okey = (stages & 1) ? kDstKey : kBufKey, oval = (stages & 1) ? kDstVal : kBufVal;
  std::vector<std::unique_ptr<Kernel>> ks;
  {
    // Each key/value is loaded once and stored once; the sorting reuse is in shared memory.
    MsParams q = p;
    q.in_key = kSrcKey;
    q.in_val = kSrcVal;
    q.out_key = ikey;
    q.out_val = ival;
    KernelShape shape;
    shape.name = "mergeSortSharedKernel";
    shape.grid = {n / kShared, 1, 1};
    shape.block = {kShared / 2, 1, 1};
    shape.regs_per_thread = 20;
    shape.shared_mem_bytes = 2 * kShared * 4;
    ks.push_back(make_grid_kernel<SortSharedStream>(std::move(shape), data_with({}), q));
  }
  const std::uint32_t rank_ctas = (n / (2 * kSample) + 255) / 256;
  for (std::uint32_t s = 0; s < stages; ++s) {
    const std::uint32_t stride = p.host->stages[s].stride;
    MsParams q = p;
    q.stage = s;
    q.in_key = ikey;
    q.in_val = ival;
    q.out_key = okey;
    q.out_val = oval;
    {
      // The stride/128 threads of a segment binary-search the same sorted half-segment: the
      // first probes (middle, quarters) hit the same few keys in every thread, so the segment
      // is a D-Tile co-accessed, at data-dependent positions, by its CTA.
      KernelShape shape;
      shape.name = "generateSampleRanksKernel";
      shape.grid = {rank_ctas, 1, 1};
      shape.block = {256, 1, 1};
      shape.regs_per_thread = 16;
      ks.push_back(make_grid_kernel<SampleRanksStream>(
          std::move(shape),
          data_with({{ikey, inter_thread(SharingType::CoAccessed, AccessPattern::Irregular,
                                         {2 * stride, 1, 1}, {1, 1, 1}, {1, 0, 0})}}),
          q));
    }
    for (std::uint32_t which = 0; which < 2; ++which) {
      // The 2*stride/128 ranks of a segment are binary-searched by all its threads (same
      // co-accessed pattern on a much smaller tile); the limits are scattered stores, once.
      MsParams m = q;
      m.which = which;
      KernelShape shape;
      shape.name = "mergeRanksAndIndicesKernel";
      shape.grid = {rank_ctas, 1, 1};
      shape.block = {256, 1, 1};
      shape.regs_per_thread = 14;
      const std::uint16_t ranks = which ? kRanksB : kRanksA;
      ks.push_back(make_grid_kernel<MergeRanksStream>(
          std::move(shape),
          data_with({{ranks, inter_thread(SharingType::CoAccessed, AccessPattern::Irregular,
                                          {2 * stride / kSample, 1, 1}, {1, 1, 1}, {1, 0, 0})}}),
          m));
    }
    {
      // CTA bx reads limits[bx] and limits[bx+1], its neighbour limits[bx+1] again: NEARBY,
      // D-Tile 2 elements advancing 1 per CTA. Keys/values are read once and written once.
      const LocalityDescriptor lim = inter_thread(SharingType::Nearby, AccessPattern::Regular,
                                                  {2, 1, 1}, {1, 1, 1}, {1, 0, 0}, 1);
      KernelShape shape;
      shape.name = "mergeElementaryIntervalsKernel";
      shape.grid = {n / kSample, 1, 1};
      shape.block = {kSample, 1, 1};
      shape.regs_per_thread = 18;
      shape.shared_mem_bytes = 4 * kSample * 4 + 6 * 4;
      ks.push_back(make_grid_kernel<MergeIntervalsStream>(
          std::move(shape), data_with({{kLimitsA, lim}, {kLimitsB, lim}}), q));
    }
    std::swap(ikey, okey);
    std::swap(ival, oval);
  }
  return std::make_unique<KernelListWorkload>("mergesort",
                                              "CUDA SDK mergeSort, " + std::to_string(n) +
                                                  " uint keys+values, " + std::to_string(stages) +
                                                  " merge stage(s), seed " + std::to_string(seed),
                                              std::move(ks));
}

}  // namespace

WorkloadInfo mergesort_workload() {
  return {"mergesort",
          "CUDA SDK",
          "merge sort: 1024-element shared-memory sorts, then sample ranks, limits and "
          "elementary-interval merges per stride doubling (random keys)",
          "65536 keys, 6 merge stages",
          params(),
          make_mergesort,
          // PAVER Table 2: 32768 TBs (4M keys); the host model stops at 1M keys: 8192 merge CTAs.
          {{"paver", {{"n", "1048576"}}}}};
}

}  // namespace locsim
