// Parboil sad (sum of absolute differences for H.264 motion estimation, CUDA version: sad4.cu,
// largerBlocks.cu, main.cu). SEARCH_RANGE = 16, SEARCH_DIMENSION = 33, MAX_POS = 33*33 = 1089,
// MAX_POS_PADDED = 1096, POS_PER_THREAD = 18, THREADS_W = THREADS_H = 1. d_sads holds 41 SAD
// vectors of MAX_POS_PADDED ushorts per macroblock: types 1..7 at (0, 1, 3, 5, 9, 17, 25) *
// MAX_POS_PADDED * macroblocks.
//
// 1. mb_sad_calc<<<(W/4, H/4), CEIL(1089, 18) = 61, 1096*2>>>: one CTA per 4x4 block,
//      if (tid>>4 < 1) frame_loc[tid&15] = frame[cur_o + (tid>>2&3)*img_width + (tid&3)];
//      __syncthreads();
//      base = tid*18; end = min(base+18, 1089);
//      for (pos = base; pos < end; pos += 3)       // three positions per iteration
//        for (y = 0; y < 4; y++) for (k = 0; k < 6; k++)
//          t = tex2D(ref, ref_x + pos%33 + k, ref_y + pos/33 + y); sad1..3 += |t - FRAME_GET(..)|;
//        SAD_LOC_PUT(0, pos, sad1); SAD_LOC_PUT(0, pos+1, sad2); SAD_LOC_PUT(0, pos+2, sad3);
//      __syncthreads();
//      if (tid>>5 < 1) for (i = tid&31; i < 274; i += 32) ((vec8b*)blk_sad)[i] = sad_loc_8b[i];
//    with ref_x = bx*4 - 16, ref_y = by*4 - 16, blk_sad += (25*mbs + mb*16 + 4*block_y +
//    block_x) * 1096 (the recurrence on local_search_off_x in the source equals pos%33, pos/33).
// 2. larger_sad_calc_8<<<(mb_w, mb_h), (32, 4)>>> and 3. larger_sad_calc_16<<<(mb_w, mb_h), 32>>>:
//    for (sp = tx; sp < 545; sp += 32) four uint loads of the smaller blocks' SADs and five uint
//    stores of the larger blocks' SADs (index arithmetic in the stream below).
// The reference frame is a 2-D texture (clamp addressing): modelled as global 2-byte loads of the
// row-major frame with coordinates clamped to the image.
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

WorkloadInfo sad_workload();

namespace {

constexpr std::uint32_t kRange = 16, kDim = 33, kMaxPos = 1089, kPadded = 1096, kPosPerThread = 18;
constexpr std::uint32_t kSadThreads = (kMaxPos + kPosPerThread - 1) / kPosPerThread;  // 61
constexpr std::uint32_t kFrameLocBytes = 16 * 2;  // static __shared__ frame_loc[16]
constexpr std::uint32_t kHalfPos = (kMaxPos + 1) / 2, kHalfPad = kPadded / 2;  // 545, 548
enum : std::uint16_t { kFrame, kRef, kSads };

enum : std::uint32_t {
  kPcFrameLd = 0x000,
  kPcFrameSt = 0x008,
  kPcBar0 = 0x010,
  kPcPosHead = 0x018,
  kPcTex = 0x020,    // + 0x08 * (6*y + k), 24 unrolled texture fetches
  kPcFrame = 0x0e0,  // + 0x08 * (4*y + x), 16 FRAME_GET reads
  kPcAbs = 0x160,    // + 0x08 * y
  kPcSadSt = 0x180,  // + 0x08 * j, SAD_LOC_PUT of sad1..3
  kPcPosInc = 0x198,
  kPcBar1 = 0x1a0,
  kPcCopyLds = 0x1a8,
  kPcCopySt = 0x1b0,
  kPcExit = 0x1b8,
  // larger_sad_calc_8 / _16 (separate kernels, own pc space)
  kPcLgHead = 0x000,
  kPcLgLd = 0x008,  // + 0x08 * i, i00 i01 i10 i11
  kPcLgAdd = 0x028,
  kPcLgSt = 0x030,  // + 0x08 * j, five stores
  kPcLgExit = 0x058
};

struct SadParams {
  std::uint32_t w = 0, h = 0;  // pixels
  std::uint32_t mbw = 0, mbh = 0;
  Addr frame = 0, ref = 0, sads = 0;
  std::uint64_t mbs() const { return std::uint64_t{mbw} * mbh; }
};

class MbSadStream final : public CoroutineStream {
 public:
  MbSadStream(const WarpContext& w, const SadParams& p) : w_(w), p_(p) {}

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    mask_ = w_.lanes_where([this](unsigned l) { return tid(l) < 16; });
    if (mask_) {
      LOCSIM_CO_YIELD(emit_load(
          in, kPcFrameLd, mask_, kFrame,
          [this](unsigned l) {
            const std::uint64_t g = tid(l) & 15;
            return p_.frame + 2 * ((fy() + (g >> 2)) * std::uint64_t{p_.w} + fx() + (g & 3));
          },
          2));
      LOCSIM_CO_YIELD(emit_shared_store(
          in, kPcFrameSt, mask_, [this](unsigned l) { return Addr{2} * (tid(l) & 15); }, 2));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcBar0, all));
    for (it_ = 0; (mask_ = pos_mask()) != 0; ++it_) {
      LOCSIM_CO_YIELD(emit_compute(in, kPcPosHead, mask_, 3, kAluLatency));
      for (y_ = 0; y_ < 4; ++y_) {
        for (k_ = 0; k_ < 6; ++k_) {
          LOCSIM_CO_YIELD(emit_load(
              in, kPcTex + 0x08 * (6 * y_ + k_), mask_, kRef,
              [this](unsigned l) {
                const std::uint32_t pos = pos_of(l);
                return tex(std::int64_t{fx()} - kRange + pos % kDim + k_,
                           std::int64_t{fy()} - kRange + pos / kDim + y_);
              },
              2));
        }
        for (k_ = 0; k_ < 4; ++k_) {
          LOCSIM_CO_YIELD(emit_shared_load(
              in, kPcFrame + 0x08 * (4 * y_ + k_), mask_,
              [this](unsigned) { return Addr{2} * (4 * y_ + k_); }, 2));
        }
        LOCSIM_CO_YIELD(emit_compute(in, kPcAbs + 0x08 * y_, mask_, 24, kAluLatency));
      }
      for (k_ = 0; k_ < 3; ++k_) {
        LOCSIM_CO_YIELD(emit_shared_store(
            in, kPcSadSt + 0x08 * k_, mask_,
            [this](unsigned l) { return kFrameLocBytes + Addr{2} * (pos_of(l) + k_); }, 2));
      }
      LOCSIM_CO_YIELD(emit_compute(in, kPcPosInc, mask_, 3, kAluLatency));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcBar1, all));
    if (w_.warp() == 0) {  // threadIdx.x >> 5 < THREADS_W*THREADS_H
      for (i_ = 0; (mask_ = w_.lanes_where(
                        [this](unsigned l) { return (tid(l) & 31) + i_ < kPadded / 4; })) != 0;
           i_ += 32) {
        LOCSIM_CO_YIELD(emit_shared_load(
            in, kPcCopyLds, mask_,
            [this](unsigned l) { return kFrameLocBytes + Addr{8} * ((tid(l) & 31) + i_); }, 8));
        LOCSIM_CO_YIELD(emit_store(
            in, kPcCopySt, mask_, kSads,
            [this](unsigned l) { return out_base() + 8 * ((tid(l) & 31) + i_); }, 8));
      }
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, all));
    LOCSIM_CO_END;
  }

 private:
  std::uint32_t tid(unsigned l) const { return w_.thread_idx(l).x; }
  std::uint32_t fx() const { return w_.block_idx().x * 4; }  // frame_x of the 4x4 block
  std::uint32_t fy() const { return w_.block_idx().y * 4; }
  std::uint32_t base(unsigned l) const { return (tid(l) % kSadThreads) * kPosPerThread; }
  std::uint32_t pos_of(unsigned l) const { return base(l) + 3 * it_; }
  std::uint32_t pos_mask() const {
    return w_.lanes_where([this](unsigned l) {
      const std::uint32_t end = std::min(base(l) + kPosPerThread, kMaxPos);
      return pos_of(l) < end;
    });
  }
  // tex2D with cudaAddressModeClamp on the row-major W x H ushort reference frame.
  Addr tex(std::int64_t x, std::int64_t y) const {
    x = std::clamp<std::int64_t>(x, 0, p_.w - 1);
    y = std::clamp<std::int64_t>(y, 0, p_.h - 1);
    return p_.ref + 2 * static_cast<std::uint64_t>(y * p_.w + x);
  }
  Addr out_base() const {
    const std::uint32_t bx = w_.block_idx().x, by = w_.block_idx().y;
    const std::uint64_t mb = std::uint64_t{by >> 2} * p_.mbw + (bx >> 2);
    return p_.sads + 2 * (p_.mbs() * 25 + mb * 16 + 4 * (by & 3) + (bx & 3)) * kPadded;
  }

  WarpContext w_;
  SadParams p_;
  std::uint32_t it_ = 0, y_ = 0, k_ = 0, i_ = 0, mask_ = 0;
};

// larger_sad_calc_8 (Big = false, block (32, 4)) and larger_sad_calc_16 (Big = true, block 32).
// Offsets in ushorts of bi, bo_a, bo_b, bo_c (bo_6, bo_5, bo_4 or bo_3, bo_2, bo_1).
template <bool Big>
class LargerSadStream final : public CoroutineStream {
 public:
  LargerSadStream(const WarpContext& w, const SadParams& p) : w_(w), p_(p) {
    const std::uint64_t mbs = p.mbs();
    const std::uint64_t mbi = (std::uint64_t{w.block_idx().y} * p.mbw + w.block_idx().x) * kPadded;
    if (!Big) {
      const std::uint64_t tx = w.warp() & 1, ty = w.warp() >> 1;  // threadIdx.y = warp
      bi_ = (mbs * 25 + ty * 8 + tx * 2) * kPadded + mbi * 16;
      bo_[0] = (mbs * 17 + ty * 4 + tx * 2) * kPadded + mbi * 8;
      bo_[1] = (mbs * 9 + ty * 4 + tx) * kPadded + mbi * 8;
      bo_[2] = (mbs * 5 + ty * 2 + tx) * kPadded + mbi * 4;
    } else {
      const std::uint64_t m = mbs * kPadded;
      bi_ = ((m + mbi) << 2) + m;
      bo_[0] = ((m + mbi) << 1) + m;
      bo_[1] = m + mbi * 2;
      bo_[2] = mbi;
    }
  }

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    LOCSIM_CO_YIELD(emit_compute(in, kPcLgHead, all, 8, kAluLatency));
    for (sp_ = 0; (mask_ = w_.lanes_where(
                       [this](unsigned l) { return w_.thread_idx(l).x + sp_ < kHalfPos; })) != 0;
         sp_ += 32) {
      for (j_ = 0; j_ < 4; ++j_) {
        LOCSIM_CO_YIELD(emit_load(in, kPcLgLd + 0x08 * j_, mask_, kSads, [this](unsigned l) {
          // i00, i01, i10, i11 at uint offsets 0, 1, 4, 5 (calc_8) or 0, 1, 2, 3 (calc_16) rows
          static constexpr std::uint32_t kRow8[4] = {0, 1, 4, 5};
          const std::uint32_t row = Big ? j_ : kRow8[j_];
          return uint_at(bi_, w_.thread_idx(l).x + sp_ + row * kHalfPad);
        }));
      }
      LOCSIM_CO_YIELD(emit_compute(in, kPcLgAdd, mask_, 6, kAluLatency));
      for (j_ = 0; j_ < 5; ++j_) {
        LOCSIM_CO_YIELD(emit_store(in, kPcLgSt + 0x08 * j_, mask_, kSads, [this](unsigned l) {
          // bo_a[sp], bo_a[sp + 548], bo_b[sp], bo_b[sp + 548*(calc_8 ? 2 : 1)], bo_c[sp]
          static constexpr std::uint32_t kOut[5] = {0, 0, 1, 1, 2};
          const std::uint32_t row = (j_ == 1 || j_ == 3) ? ((!Big && j_ == 3) ? 2 : 1) : 0;
          return uint_at(bo_[kOut[j_]], w_.thread_idx(l).x + sp_ + row * kHalfPad);
        }));
      }
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcLgExit, all));
    LOCSIM_CO_END;
  }

 private:
  Addr uint_at(std::uint64_t ushort_off, std::uint64_t uint_idx) const {
    return p_.sads + 2 * ushort_off + 4 * uint_idx;
  }

  WarpContext w_;
  SadParams p_;
  std::uint64_t bi_ = 0, bo_[3] = {0, 0, 0};
  std::uint32_t sp_ = 0, j_ = 0, mask_ = 0;
};

WorkloadParamDecls params() {
  return {{"width", {"64", "frame width in pixels (a multiple of 16)"}},
          {"height", {"64", "frame height in pixels (a multiple of 16)"}}};
}

std::unique_ptr<Workload> make_sad(const WorkloadArgs& args) {
  WorkloadArgReader r("sad", params(), args);
  SadParams p;
  p.w = r.get_u32("width", {16, 4096, 16, "whole macroblocks"});
  p.h = r.get_u32("height", {16, 4096, 16, "whole macroblocks"});
  p.mbw = p.w / 16;
  p.mbh = p.h / 16;
  const std::uint64_t img = std::uint64_t{p.w} * p.h * 2;
  const std::uint64_t sad_bytes = 41 * std::uint64_t{kPadded} * p.mbs() * 2;
  DeviceAllocator alloc;
  p.frame = alloc.alloc(img);
  p.ref = alloc.alloc(img);
  p.sads = alloc.alloc(sad_bytes);
  std::vector<std::unique_ptr<Kernel>> ks;
  {
    // frame: each pixel is read once, by the CTA of its 4x4 block: NO-REUSE.
    // ref: the 36x36-pixel search windows of CTAs 4 pixels apart overlap (each pixel is read by
    // up to 9x9 CTAs and, within a CTA, by many positions): INTER-THREAD (NEARBY, REGULAR),
    // D-Tile = 36x36 pixels per CTA, C-Tile = 1 CTA, the D-Tile advancing 4 pixels per CTA.
    // d_sads: each 4x4-block SAD vector is written once: NO-REUSE.
    std::vector<DataStructure> data = {{"frame", p.frame, img, 2, {no_reuse()}},
                                       {"ref",
                                        p.ref,
                                        img,
                                        2,
                                        {inter_thread(SharingType::Nearby, AccessPattern::Regular,
                                                      {36, 36, 1}, {1, 1, 1}, {4, 4, 0}, p.w)}},
                                       {"d_sads", p.sads, sad_bytes, 2, {no_reuse()}}};
    KernelShape shape;
    shape.name = "mb_sad_calc";
    shape.grid = {p.w / 4, p.h / 4, 1};
    shape.block = {kSadThreads, 1, 1};
    shape.regs_per_thread = 20;
    shape.shared_mem_bytes = kFrameLocBytes + kPadded * 2;
    ks.push_back(make_grid_kernel<MbSadStream>(std::move(shape), std::move(data), p));
  }
  for (int big = 0; big < 2; ++big) {
    // d_sads: every SAD vector of the smaller blocks is read by exactly one thread and the
    // larger blocks' vectors written once (the reuse is across the two launches, the 16x16
    // kernel re-reading the 8x8 sums): NO-REUSE within each kernel.
    std::vector<DataStructure> data = {{"frame", p.frame, img, 2, {no_reuse()}},
                                       {"ref", p.ref, img, 2, {no_reuse()}},
                                       {"d_sads", p.sads, sad_bytes, 4, {no_reuse()}}};
    KernelShape shape;
    shape.name = big ? "larger_sad_calc_16" : "larger_sad_calc_8";
    shape.grid = {p.mbw, p.mbh, 1};
    shape.block = {32, big ? 1u : 4u, 1};
    shape.regs_per_thread = 16;
    if (big)
      ks.push_back(make_grid_kernel<LargerSadStream<true>>(std::move(shape), std::move(data), p));
    else
      ks.push_back(make_grid_kernel<LargerSadStream<false>>(std::move(shape), std::move(data), p));
  }
  return std::make_unique<KernelListWorkload>(
      "sad",
      "Parboil sad, " + std::to_string(p.w) + "x" + std::to_string(p.h) +
          " pixels, search range 16 (1089 positions), 4x4 then 8x8 and 16x16 SADs",
      std::move(ks));
}

}  // namespace

WorkloadInfo sad_workload() {
  return {"sad",
          "Parboil",
          "motion-estimation SADs over a +-16 search window: 4x4 blocks, then 8x8 and 16x16 sums",
          "64x64 pixels",
          params(),
          make_sad,
          // PAVER Table 2: 1584 TBs = 44x36 4x4 blocks of Parboil's 176x144 (QCIF) frames.
          {{"paver", {{"width", "176"}, {"height", "144"}}}}};
}

}  // namespace locsim
