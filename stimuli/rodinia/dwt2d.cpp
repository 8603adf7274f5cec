// Rodinia dwt2d, forward 5/3 transform of integer components (cuda/dwt2d: main.cu processDWT<int>,
// components.cu, dwt_cuda/fdwt53.cu, io.h, transform_buffer.h). The host launches, in order:
//   rgbToComponents: c_CopySrcToComponents<<<ceil(pixels/256), 256>>> (or bwToComponent's
//     c_CopySrcToComponent for one component): x = threadIdx.x, gX = blockDim.x*blockIdx.x;
//     if (4x < 256*3) ((float*)sData)[x] = ((float*)d_src)[(gX*3 >> 2) + x];  __syncthreads();
//     r,g,b = sData[3x], sData[3x+1], sData[3x+2];
//     if (gX + x < pixels) { d_r[gX+x] = r - 128; d_g[..] = g - 128; d_b[..] = b - 128; }
//   then per component, fdwt53(in, out, sx, sy, levels): one fdwt53Kernel<WIN, 8> launch per level
//     (WIN = 192 / 128 / 64 threads for sx >= 960 / >= 480 / else), steps = ceil(sy/(15*8)),
//     grid (ceil(sx/WIN), ceil(sy/(8*steps))); between levels the LL band (ceil(sx/2) x
//     ceil(sy/2) coefficients at the start of `out`) is copied back into `in` (cudaMemcpy).
// fdwt53Kernel: a CTA transforms a WIN x 8*steps tile with a sliding window of 8 rows. Thread tx
// owns image column bx*WIN + tx (x mirrored: d >= size -> 2*size-2-d, d < 0 -> -d); threads 0..2
// also own the boundary columns WIN, -2, -1 (the horizontal halo, read by the neighbouring CTAs
// too). Each column first loads 3 rows (by == 0: rows 0,1,2, i.e. the mirrored -2,-1,0; else
// firstY-2 .. firstY), then per window step: the 3 kept pixels and 8 more rows
// (in[x + sx*row], rows reflected at the bottom: row >= sy -> 2*sy-2-row) go to the shared
// TransformBuffer<int, WIN, 11, 2> column (even/odd columns in two halves, VERTICAL_STRIDE
// VS = 2 + WIN/2, odd half at ODD_OFFSET), rows 8..10 are read back, then the vertical lifting
// (predict c -= (p+n)/2 on rows 1,3,..,9, update c += (p+n+2)/4 on rows 2,..,8), a barrier, the
// horizontal predict and update over rows 2..9 (count = 8*VS-1 elements, ceil steps of WIN
// threads) with a barrier after each, and each thread writes its output column (parityIdx: even
// columns 2tx by the first half of the threads, odd ones by the second) as low/high pairs into
// the band layout LL|HL|LH|HH of io.h's VerticalDWTBandWriter (rows >= sy and columns >= sx
// skipped), and a final barrier.
#include <algorithm>
#include <cstdint>
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

WorkloadInfo dwt2d_workload();

namespace {

constexpr std::int64_t kCopyThreads = 256;  // THREADS in components.cu
constexpr std::int64_t kWinY = 8;           // WIN_SIZE_Y of every fdwt53Kernel instance
constexpr std::int64_t kRows = kWinY + 3;   // the TransformBuffer's SIZE_Y
constexpr std::int64_t kMinWidth = 33, kMinHeight = 5;

enum : std::uint32_t {
  // c_CopySrcToComponent(s)
  kPcCLdSrc = 0x000,
  kPcCStsSrc = 0x008,
  kPcCBar = 0x010,
  kPcCLds = 0x018,  // + 8*component
  kPcCCvt = 0x030,
  kPcCSt = 0x038,  // + 8*component
  kPcCExit = 0x050,
  // fdwt53Kernel; the column code exists twice (main column, + kPcBnd for the boundary column)
  kPcSetup = 0x100,
  kPcInitLd = 0x108,
  kPcStsPix = 0x110,
  kPcLdRow = 0x118,
  kPcStsRow = 0x120,
  kPcLdsPix = 0x128,
  kPcVoLdsP = 0x130,
  kPcVoLdsN = 0x138,
  kPcVoLdsC = 0x140,
  kPcVoAlu = 0x148,
  kPcVoSts = 0x150,
  kPcVeLdsP = 0x158,
  kPcVeLdsN = 0x160,
  kPcVeLdsC = 0x168,
  kPcVeAlu = 0x170,
  kPcVeSts = 0x178,
  kPcBnd = 0x100,
  kPcBar0 = 0x300,
  kPcHLdsP = 0x308,  // + 0x28 for the checked last step, + 0x50 for the update pass
  kPcHLdsN = 0x310,
  kPcHLdsC = 0x318,
  kPcHAlu = 0x320,
  kPcHSts = 0x328,
  kPcBar1 = 0x3a8,
  kPcBar2 = 0x3b0,
  kPcLdsLow = 0x3b8,
  kPcStLow = 0x3c0,
  kPcLdsHigh = 0x3c8,
  kPcStHigh = 0x3d0,
  kPcBar3 = 0x3d8,
  kPcExit = 0x3e0
};

std::int64_t div_up(std::int64_t n, std::int64_t d) {
  return (n + d - 1) / d;
}

// One fdwt53 launch: the image size and the template/launch constants launchFDWT53Kernel picks.
struct Level {
  std::int64_t sx = 0, sy = 0;
  std::int64_t win = 0;    // WIN_SIZE_X = threads per CTA
  std::int64_t steps = 0;  // sliding-window steps per CTA
  std::int64_t gx = 0, gy = 0;
  std::int64_t vs = 0;     // TransformBuffer VERTICAL_STRIDE
  std::int64_t odd = 0;    // ODD_OFFSET (words)
  std::int64_t words = 0;  // ints of the shared buffer
};

Level make_level(std::int64_t sx, std::int64_t sy) {
  Level v;
  v.sx = sx;
  v.sy = sy;
  v.win = sx >= 960 ? 192 : sx >= 480 ? 128 : 64;
  v.steps = div_up(sy, 15 * kWinY);
  v.gx = div_up(sx, v.win);
  v.gy = div_up(sy, kWinY * v.steps);
  v.vs = 2 + v.win / 2;
  const std::int64_t buffer = v.vs * kRows, banks = 32;  // SHM_BANKS for sm_20+
  const std::int64_t padding = banks - (buffer + banks / 2) % banks;
  v.odd = buffer + padding;
  v.words = 2 * buffer + padding;
  return v;
}

struct CopyParams {
  std::int64_t pixels = 0;
  std::uint32_t comps = 3;
  Addr src = 0;
  Addr comp[3] = {};
};

// Data structures: 0 = d_src, 1 + c = component c.
class CopyStream final : public CoroutineStream {
 public:
  CopyStream(const WarpContext& w, const CopyParams& p) : w_(w), p_(p) {
    gx_ = kCopyThreads * w.block_idx().x;
    const std::int64_t bytes = kCopyThreads * p.comps;  // sizeof sData
    ld_ = w.lanes_where([&](unsigned l) { return 4 * x(l) < bytes; });
    in_ = w.lanes_where([&](unsigned l) { return gx_ + x(l) < p.pixels; });
  }

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    if (ld_) {  // ((float*)sData)[x] = ((float*)d_src)[(gX*comps >> 2) + x]
      LOCSIM_CO_YIELD(emit_load(in, kPcCLdSrc, ld_, 0, [this](unsigned l) {
        return p_.src + 4 * (((gx_ * p_.comps) >> 2) + x(l));
      }));
      LOCSIM_CO_YIELD(
          emit_shared_store(in, kPcCStsSrc, ld_, [this](unsigned l) { return 4 * x(l); }));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcCBar, all));
    for (c_ = 0; c_ < p_.comps; ++c_)  // unsigned char sData[comps*x + c]
      LOCSIM_CO_YIELD(emit_shared_load(
          in, kPcCLds + 8 * c_, all, [this](unsigned l) { return p_.comps * x(l) + c_; }, 1));
    LOCSIM_CO_YIELD(emit_compute(in, kPcCCvt, all, static_cast<std::uint16_t>(2 * p_.comps + 2),
                                 kAluLatency));  // position, compare, I2I and subtract each
    if (in_) {
      for (c_ = 0; c_ < p_.comps; ++c_)
        LOCSIM_CO_YIELD(emit_store(in, kPcCSt + 8 * c_, in_, static_cast<std::uint16_t>(1 + c_),
                                   [this](unsigned l) { return p_.comp[c_] + 4 * (gx_ + x(l)); }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcCExit, all));
    LOCSIM_CO_END;
  }

 private:
  std::int64_t x(unsigned l) const { return w_.thread_idx(l).x; }

  WarpContext w_;
  CopyParams p_;
  std::int64_t gx_ = 0;
  std::uint32_t ld_ = 0, in_ = 0, c_ = 0;
};

struct FdwtParams {
  Level v;
  Addr in = 0, out = 0;
};

enum : std::uint16_t { kIn, kOut };

class FdwtStream final : public CoroutineStream {
 public:
  FdwtStream(const WarpContext& w, const FdwtParams& p) : w_(w), p_(p) {
    const Level& v = p.v;
    const std::int64_t bx = w.block_idx().x;
    first_y_ = w.block_idx().y * kWinY * v.steps;
    top_ = w.block_idx().y == 0;
    for (unsigned l = 0; l < kLanesPerWarp; ++l) {
      const std::int64_t tx = w.thread_idx(l).x;
      // column: this thread's own column; boundaryColumn (tx < 3): WIN, -2, -1.
      const std::int64_t col[2] = {tx, tx + (tx == 0 ? v.win : -3)};
      for (int c = 0; c < 2; ++c) {
        x_[c][l] = mirror(bx * v.win + col[c], v.sx);
        off_[c][l] = column_offset(col[c]);
      }
      // parityIdx<WIN>(): even columns 2tx for tx < WIN/2, odd columns 2tx - (WIN-1) above.
      const std::int64_t oc = 2 * tx - (v.win - 1) * (tx / (v.win / 2));
      out_off_[l] = column_offset(oc);
      out_x_[l] = bx * v.win + oc;
    }
    mask_[0] = w.live_mask();
    mask_[1] = w.lanes_where([&](unsigned l) { return w.thread_idx(l).x < 3; });
    out_cols_ = w.lanes_where([&](unsigned l) { return out_x_[l] < v.sx; });
    const std::int64_t count = kWinY * v.vs - 1;  // horizontalStep's count
    h_steps_ = count / v.win;
    h_final_ = w.lanes_where([&](unsigned l) { return w.thread_idx(l).x < count % v.win; });
  }

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    // maxX/maxY, the column offsets, loader and writer initialisation.
    LOCSIM_CO_YIELD(emit_compute(in, kPcSetup, all, 12, kAluLatency));
    for (c_ = 0; c_ < 2; ++c_) {  // initColumn: the first 3 rows
      if (!mask_[c_]) continue;
      for (i_ = 0; i_ < 3; ++i_)
        LOCSIM_CO_YIELD(emit_load(in, kPcInitLd + kPcBnd * c_, mask_[c_], kIn, [this](unsigned l) {
          return pixel(c_, l, top_ ? first_y_ + i_ : first_y_ - 2 + i_);
        }));
    }
    for (w_step_ = 0; w_step_ < p_.v.steps; ++w_step_) {
      for (c_ = 0; c_ < 2; ++c_) {  // loadAndVerticallyTransform(column / boundaryColumn)
        if (!mask_[c_]) continue;
        pc_ = kPcBnd * c_;
        for (i_ = 0; i_ < 3; ++i_)  // buffer[offset + i*STRIDE] = pixel0..2
          LOCSIM_CO_YIELD(emit_shared_store(in, kPcStsPix + pc_, mask_[c_],
                                            [this](unsigned l) { return buf(c_, l, i_); }));
        for (i_ = 3; i_ < kRows; ++i_) {
          LOCSIM_CO_YIELD(emit_load(in, kPcLdRow + pc_, mask_[c_], kIn, [this](unsigned l) {
            return pixel(c_, l, first_y_ + kWinY * w_step_ + i_ - 2);
          }));
          LOCSIM_CO_YIELD(emit_shared_store(in, kPcStsRow + pc_, mask_[c_],
                                            [this](unsigned l) { return buf(c_, l, i_); }));
        }
        for (i_ = kWinY; i_ < kRows; ++i_)  // pixel0..2 = the last 3 rows
          LOCSIM_CO_YIELD(emit_shared_load(in, kPcLdsPix + pc_, mask_[c_],
                                           [this](unsigned l) { return buf(c_, l, i_); }));
        for (i_ = 1; i_ < kRows - 1; i_ += 2) {  // forEachVerticalOdd: predict rows 1, 3, .., 9
          LOCSIM_CO_YIELD(emit_shared_load(in, kPcVoLdsP + pc_, mask_[c_],
                                           [this](unsigned l) { return buf(c_, l, i_ - 1); }));
          LOCSIM_CO_YIELD(emit_shared_load(in, kPcVoLdsN + pc_, mask_[c_],
                                           [this](unsigned l) { return buf(c_, l, i_ + 1); }));
          LOCSIM_CO_YIELD(emit_shared_load(in, kPcVoLdsC + pc_, mask_[c_],
                                           [this](unsigned l) { return buf(c_, l, i_); }));
          LOCSIM_CO_YIELD(emit_compute(in, kPcVoAlu + pc_, mask_[c_], 3, kAluLatency));
          LOCSIM_CO_YIELD(emit_shared_store(in, kPcVoSts + pc_, mask_[c_],
                                            [this](unsigned l) { return buf(c_, l, i_); }));
        }
        for (i_ = 2; i_ < kRows - 1; i_ += 2) {  // forEachVerticalEven: update rows 2, 4, .., 8
          LOCSIM_CO_YIELD(emit_shared_load(in, kPcVeLdsP + pc_, mask_[c_],
                                           [this](unsigned l) { return buf(c_, l, i_ - 1); }));
          LOCSIM_CO_YIELD(emit_shared_load(in, kPcVeLdsN + pc_, mask_[c_],
                                           [this](unsigned l) { return buf(c_, l, i_ + 1); }));
          LOCSIM_CO_YIELD(emit_shared_load(in, kPcVeLdsC + pc_, mask_[c_],
                                           [this](unsigned l) { return buf(c_, l, i_); }));
          LOCSIM_CO_YIELD(emit_compute(in, kPcVeAlu + pc_, mask_[c_], 4, kAluLatency));
          LOCSIM_CO_YIELD(emit_shared_store(in, kPcVeSts + pc_, mask_[c_],
                                            [this](unsigned l) { return buf(c_, l, i_); }));
        }
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBar0, all));
      // forEachHorizontalOdd (pass 0: predict the odd half from even neighbours) and
      // forEachHorizontalEven (pass 1: update the even half from odd neighbours), rows 2..9.
      for (pass_ = 0; pass_ < 2; ++pass_) {
        for (i_ = 0; i_ <= h_steps_; ++i_) {
          h_mask_ = i_ < h_steps_ ? all : h_final_;
          if (!h_mask_) continue;
          pc_ = 0x50 * pass_ + (i_ < h_steps_ ? 0 : 0x28);
          LOCSIM_CO_YIELD(emit_shared_load(in, kPcHLdsP + pc_, h_mask_,
                                           [this](unsigned l) { return hbuf(l, h_prev()); }));
          LOCSIM_CO_YIELD(emit_shared_load(in, kPcHLdsN + pc_, h_mask_,
                                           [this](unsigned l) { return hbuf(l, h_prev() + 1); }));
          LOCSIM_CO_YIELD(emit_shared_load(in, kPcHLdsC + pc_, h_mask_,
                                           [this](unsigned l) { return hbuf(l, h_mid()); }));
          LOCSIM_CO_YIELD(emit_compute(in, kPcHAlu + pc_, h_mask_, pass_ ? 4 : 3, kAluLatency));
          LOCSIM_CO_YIELD(emit_shared_store(in, kPcHSts + pc_, h_mask_,
                                            [this](unsigned l) { return hbuf(l, h_mid()); }));
        }
        LOCSIM_CO_YIELD(emit_barrier(in, pass_ ? kPcBar2 : kPcBar1, all));
      }
      for (k_ = 0; k_ < kWinY / 2; ++k_) {  // rows r = 2 + 2k (low) and r + 1 (high)
        for (hi_ = 0; hi_ < 2; ++hi_) {
          LOCSIM_CO_YIELD(emit_shared_load(in, hi_ ? kPcLdsHigh : kPcLdsLow, all,
                                           [this](unsigned l) { return out_buf(l); }));
          st_mask_ = out_rows_ok() ? out_cols_ : 0;
          if (st_mask_)
            LOCSIM_CO_YIELD(emit_store(in, hi_ ? kPcStHigh : kPcStLow, st_mask_, kOut,
                                       [this](unsigned l) { return coefficient(l); }));
        }
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBar3, all));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, all));
    LOCSIM_CO_END;
  }

 private:
  static std::int64_t mirror(std::int64_t d, std::int64_t size) {
    return d >= size ? 2 * size - 2 - d : d < 0 ? -d : d;
  }
  // TransformBuffer::getColumnOffset: even columns in the first half, odd ones at ODD_OFFSET.
  std::int64_t column_offset(std::int64_t column) const {
    column += 2;
    return column / 2 + (column & 1) * p_.v.odd;
  }
  // in[x + sx*row] of column c's image column; rows past the bottom are reflected.
  Addr pixel(int c, unsigned l, std::int64_t row) const {
    return p_.in + 4 * (x_[c][l] + p_.v.sx * mirror(row, p_.v.sy));
  }
  Addr buf(int c, unsigned l, std::int64_t row) const { return 4 * (off_[c][l] + row * p_.v.vs); }
  // horizontalStep: data[offset + i*WIN + tx] for the current step i_.
  Addr hbuf(unsigned l, std::int64_t offset) const {
    return 4 * (offset + i_ * p_.v.win + w_.thread_idx(l).x);
  }
  std::int64_t h_prev() const {  // odd pass: even predecessor; even pass: odd predecessor
    return 2 * p_.v.vs + (pass_ ? p_.v.odd : 0);
  }
  std::int64_t h_mid() const { return 2 * p_.v.vs + (pass_ ? 1 : p_.v.odd); }
  Addr out_buf(unsigned l) const { return 4 * (out_off_[l] + (2 + 2 * k_ + hi_) * p_.v.vs); }
  // The image row written by this (k_, hi_): the writer stops at the bottom edge.
  std::int64_t out_row() const { return first_y_ + kWinY * w_step_ + 2 * k_ + hi_; }
  bool out_rows_ok() const { return out_row() < p_.v.sy; }
  // VerticalDWTBandWriter: even columns in the left bands (LL above LH), odd in the right ones
  // (HL above HH); the band row is image row / 2.
  Addr coefficient(unsigned l) const {
    const std::int64_t sx = p_.v.sx, sy = p_.v.sy, x = out_x_[l];
    std::int64_t pos = 0;
    if (x & 1)
      pos =
          x / 2 + div_up(sx, 2) * div_up(sy, 2) + (out_row() / 2) * (sx / 2) + hi_ * (sx * sy / 2);
    else
      pos = x / 2 + (out_row() / 2) * div_up(sx, 2) + hi_ * div_up(sy, 2) * sx;
    return p_.out + 4 * pos;
  }

  WarpContext w_;
  FdwtParams p_;
  std::int64_t first_y_ = 0;
  bool top_ = false;
  std::int64_t x_[2][kLanesPerWarp] = {}, off_[2][kLanesPerWarp] = {};
  std::int64_t out_x_[kLanesPerWarp] = {}, out_off_[kLanesPerWarp] = {};
  std::uint32_t mask_[2] = {}, out_cols_ = 0, h_final_ = 0;
  std::int64_t h_steps_ = 0;
  // Coroutine state.
  int c_ = 0;
  std::int64_t i_ = 0, w_step_ = 0, pass_ = 0, k_ = 0, hi_ = 0;
  std::uint32_t pc_ = 0, h_mask_ = 0, st_mask_ = 0;
};

WorkloadParamDecls params() {
  return {{"width", {"192", "image width in pixels (Rodinia -d WxH)"}},
          {"height", {"192", "image height in pixels"}},
          {"components", {"3", "colour components (3: RGB, 1: grey; Rodinia -c)"}},
          {"levels", {"3", "DWT levels, one fdwt53Kernel launch each per component (-l)"}}};
}

std::unique_ptr<Workload> make_dwt2d(const WorkloadArgs& args) {
  WorkloadArgReader r("dwt2d", params(), args);
  const std::int64_t width = r.get_u32(
      "width", {kMinWidth, 8192, 1, "the 64-column window mirrors its halo inside the image"});
  const std::int64_t height = r.get_u32(
      "height", {kMinHeight, 8192, 1, "the 8-row window reflects its halo inside the image"});
  const std::uint32_t comps = r.get_u32("components", {0, 0xffffffffu, 1, ""});
  if (comps != 1 && comps != 3)
    throw ConfigError("workload 'dwt2d': parameter 'components': bad value '" +
                      r.text("components") + "' (must be 1 or 3)");
  const std::uint32_t levels = r.get_u32("levels", {1, 16, 1, ""});
  std::vector<Level> lv;
  for (std::int64_t sx = width, sy = height; lv.size() < levels;
       sx = div_up(sx, 2), sy = div_up(sy, 2)) {
    if (sx < kMinWidth || sy < kMinHeight)
      throw ConfigError("workload 'dwt2d': parameter 'levels': bad value '" + r.text("levels") +
                        "' (level " + std::to_string(lv.size() + 1) + " would transform a " +
                        std::to_string(sx) + "x" + std::to_string(sy) +
                        " band; every level needs at least 33x5 pixels)");
    lv.push_back(make_level(sx, sy));
  }

  // processDWT<int>'s allocations in order (`backup` is only touched by cudaMemcpy), then
  // rgbToComponents' d_src, aligned to the copy kernel's 256-pixel blocks.
  const std::int64_t pixels = width * height;
  const std::uint64_t comp_bytes = static_cast<std::uint64_t>(pixels) * 4;
  const std::uint64_t src_bytes =
      static_cast<std::uint64_t>(div_up(pixels, kCopyThreads) * kCopyThreads * comps);
  DeviceAllocator alloc;
  Addr out[3] = {}, in[3] = {};
  out[0] = alloc.alloc(comp_bytes);
  alloc.alloc(comp_bytes);  // backup
  for (std::uint32_t c = 1; c < comps; ++c) out[c] = alloc.alloc(comp_bytes);
  for (std::uint32_t c = 0; c < comps; ++c) in[c] = alloc.alloc(comp_bytes);
  const Addr src = alloc.alloc(src_bytes);
  const char* in_names[3] = {"c_r", "c_g", "c_b"};
  const char* out_names[3] = {"c_r_out", "c_g_out", "c_b_out"};

  std::vector<std::unique_ptr<Kernel>> ks;
  {
    // Seed 000 Table 2 lists dwt2d's locality as INTER-THREAD (NEARBY, REGULAR), the halo reads
    // of fdwt53Kernel; the conversion kernel streams d_src in and the components out: NO-REUSE.
    CopyParams p;
    p.pixels = pixels;
    p.comps = comps;
    p.src = src;
    std::vector<DataStructure> data = {{"d_src", src, src_bytes, 1, {no_reuse()}}};
    for (std::uint32_t c = 0; c < comps; ++c) {
      p.comp[c] = in[c];
      data.push_back({in_names[c], in[c], comp_bytes, 4, {no_reuse()}});
    }
    KernelShape s;
    s.name = comps == 3 ? "c_CopySrcToComponents" : "c_CopySrcToComponent";
    s.grid = {static_cast<std::uint32_t>(div_up(pixels, kCopyThreads)), 1, 1};
    s.block = {kCopyThreads, 1, 1};
    s.regs_per_thread = 12;
    s.shared_mem_bytes = kCopyThreads * comps;  // unsigned char sData[THREADS*comps]
    ks.push_back(make_grid_kernel<CopyStream>(std::move(s), std::move(data), p));
  }
  for (std::uint32_t c = 0; c < comps; ++c) {
    for (const Level& v : lv) {
      FdwtParams p;
      p.v = v;
      p.in = in[c];
      p.out = out[c];
      // in: each CTA reads its WIN x 8*steps tile plus 3 halo columns and 2 halo rows that the
      // neighbouring CTAs read too: INTER-THREAD (NEARBY, REGULAR), row pitch sx. out: every
      // coefficient is written once: NO-REUSE.
      const auto nearby = inter_thread(
          SharingType::Nearby, AccessPattern::Regular,
          {static_cast<std::uint32_t>(v.win), static_cast<std::uint32_t>(kWinY * v.steps), 1},
          {1, 1, 1}, {1, 1, 0}, static_cast<std::uint64_t>(v.sx));
      const LDim3 plane{static_cast<std::uint32_t>(v.sx),
                        static_cast<std::uint32_t>(comp_bytes / 4 / v.sx), 1};
      std::vector<DataStructure> data = {{in_names[c], in[c], comp_bytes, 4, {nearby}, plane},
                                         {out_names[c], out[c], comp_bytes, 4, {no_reuse()}}};
      KernelShape s;
      s.name = "fdwt53Kernel";
      s.grid = {static_cast<std::uint32_t>(v.gx), static_cast<std::uint32_t>(v.gy), 1};
      s.block = {static_cast<std::uint32_t>(v.win), 1, 1};
      s.regs_per_thread = 32;
      s.shared_mem_bytes = static_cast<std::uint32_t>(4 * v.words);
      ks.push_back(make_grid_kernel<FdwtStream>(std::move(s), std::move(data), p));
    }
  }
  return std::make_unique<KernelListWorkload>(
      "dwt2d",
      "Rodinia dwt2d forward 5/3, " + std::to_string(width) + "x" + std::to_string(height) + ", " +
          std::to_string(comps) + (comps == 1 ? " component, " : " components, ") +
          std::to_string(levels) + (levels == 1 ? " level" : " levels"),
      std::move(ks));
}

}  // namespace

WorkloadInfo dwt2d_workload() {
  return {"dwt2d",
          "Rodinia",
          "2-D forward 5/3 wavelet transform: sliding-window tiles with halo in shared memory, "
          "one launch per level",
          "width=192, height=192, components=3, levels=3",
          params(),
          make_dwt2d,
          // PAVER Table 2: 4096 TBs, the copy kernel of a 1024x1024 image (Rodinia's rgb.bmp).
          {{"paver", {{"width", "1024"}, {"height", "1024"}}}}};
}

}  // namespace locsim
