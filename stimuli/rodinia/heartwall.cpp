// Rodinia heartwall (cuda/heartwall: main.cu, kernel.cu, define.c): tracking of 51 sample points
// (20 endocardial + 31 epicardial, ENDO_POINTS/EPI_POINTS) of a mouse heart wall through the
// frames of an ultrasound video. One launch per frame, kernel<<<51, 256>>> (ALL_POINTS blocks of
// NUMBER_THREADS), bx = the point; all matrices are column-major, every stage is a
//   for (ei_new = tx; ei_new < n; ei_new += 256) { row = ei_new % rows; col = ei_new / rows; ... }
// loop over a per-point global buffer (d_unique[bx].d_*) followed by __syncthreads():
//   frame 0:  thread 0 records the start position in d_tRowLoc/d_tColLoc; the template
//             d_T[in_pointer + ...] (in_rows = 2*tSize+1 square) is copied from the frame around
//             the point (d_frame[ori_col*frame_rows + ori_row]).
//   frame > 0: in2 = the (2*sSize+1)^2 search window around the point from the frame; the rotated
//             template into shared d_in_mod_temp; the full 2-D convolution
//             conv[ic, jc] = sum_{ja, ia} d_in_mod_temp[in_rows*(ja-1)+ia-1] *
//                                         d_in2[in2_rows*(jb-1)+ib-1]   (per-thread nested loops);
//             twice (for in2 and in2^2) the padded vertical cumulative sum (one thread per
//             column), two selections, a subtraction, the horizontal cumulative sum (one thread per
//             row), two more selections and a subtraction (sliding-window sums); the template's
//             sum and sum of squares (per-column loops into shared partial sums, thread 0 / 1
//             finish them), the normalised correlation, the template mask, its convolution with a
//             maxMove^2 mask, the per-row maximum search into shared par_max_val/coo and thread
//             0's final search writing the new position to d_tRowLoc/d_tColLoc.
//   frame % 10 == 0 (frame > 0): the point's d_Row/d_Col are updated and the template blended with
//             the frame (d_in = alpha*d_in + (1-alpha)*frame).
// The loads and stores of every stage follow kernel.cu's index arithmetic (the approximations are
// listed in docs/workloads/rodinia.md); the sizes (frame, point coordinates, tSize, sSize,
// maxMove) are divided by the `shrink` parameter (1 = Rodinia's 609x590 frames, 25, 40, 10).
#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo heartwall_workload();

namespace {

constexpr std::int64_t kThreads = 256;  // NUMBER_THREADS
constexpr std::uint32_t kEndo = 20, kEpi = 31, kAll = 51;
constexpr std::int64_t kNoFrames = 104;  // AVI_video_frames(test.avi): the d_t*Loc stride
constexpr std::int64_t kFrameRows = 590, kFrameCols = 609;
constexpr std::int64_t kSSize = 40, kTSize = 25, kMaxMove = 10;

// main.cu's hard-coded starting points (row, col).
constexpr std::array<int, kEndo> kEndoRow = {369, 400, 429, 452, 476, 486, 479, 458, 433, 404,
                                             374, 346, 318, 294, 277, 269, 275, 287, 311, 339};
constexpr std::array<int, kEndo> kEndoCol = {408, 406, 397, 383, 354, 322, 294, 270, 250, 237,
                                             235, 241, 254, 273, 300, 328, 356, 383, 401, 411};
constexpr std::array<int, kEpi> kEpiRow = {390, 419, 448, 474, 501, 519, 535, 542, 543, 538, 528,
                                           511, 491, 466, 438, 406, 376, 347, 318, 291, 275, 259,
                                           256, 252, 252, 257, 266, 283, 305, 331, 360};
constexpr std::array<int, kEpi> kEpiCol = {457, 454, 446, 431, 411, 388, 361, 331, 301, 273, 243,
                                           218, 196, 178, 166, 157, 155, 165, 177, 197, 218, 248,
                                           276, 304, 333, 361, 391, 415, 434, 448, 455};

// Kernel::data() order.
enum : std::uint16_t {
  kFrame,
  kEndoRowDs,
  kEndoColDs,
  kTEndoRowLoc,
  kTEndoColLoc,
  kEndoT,
  kEpiRowDs,
  kEpiColDs,
  kTEpiRowLoc,
  kTEpiColLoc,
  kEpiT,
  kFirstPerPoint  // d_in2 .. d_mask_conv, in the order of Buf below
};
// What an op addresses; Row..T resolve to the endo or epi array of the CTA's point.
enum class Buf : std::uint8_t {
  Frame,
  Row,
  Col,
  TRowLoc,
  TColLoc,
  T,
  In2,
  Conv,
  PadCumv,
  PadCumvSel,
  SubCumh,
  SubCumhSel,
  Sub2,
  In2Sqr,
  In2SqrSub2,
  InSqr,
  TMask,
  MaskConv,
  Shared
};
constexpr int kPerPointBufs = static_cast<int>(Buf::Shared) - static_cast<int>(Buf::In2);
const char* const kPerPointNames[kPerPointBufs] = {"d_in2",          "d_conv",
                                                   "d_in2_pad_cumv", "d_in2_pad_cumv_sel",
                                                   "d_in2_sub_cumh", "d_in2_sub_cumh_sel",
                                                   "d_in2_sub2",     "d_in2_sqr",
                                                   "d_in2_sqr_sub2", "d_in_sqr",
                                                   "d_tMask",        "d_mask_conv"};

// __shared__ in_partial_sum[51], in_sqr_partial_sum[51], in_final_sum, in_sqr_final_sum, denomT,
// par_max_val[131], par_max_coo[131], d_in_mod_temp[2601] (sizes hard-coded in kernel.cu).
constexpr Addr kShInPartial = 0, kShInSqrPartial = 204, kShInFinal = 408, kShInSqrFinal = 412,
               kShDenomT = 416, kShParMaxVal = 420, kShParMaxCoo = 944, kShModTemp = 1468;
constexpr std::uint32_t kSharedBytes = 11872;

// Sizes of params_common, after the shrink.
struct Geometry {
  std::int64_t t = 0, s = 0, m = 0;  // tSize, sSize, maxMove
  std::int64_t T = 0;                // in_rows = in_cols = 2*tSize+1
  std::int64_t S = 0;                // in2_rows = in2_cols = 2*sSize+1
  std::int64_t C = 0;    // conv_rows = in2_sub_cumh_rows = in2_sub2_rows = tMask_rows = T+S-1
  std::int64_t P = 0;    // in2_pad_cumv_rows = cols = S+2T
  std::int64_t off = 0;  // mask_conv_ioffset = joffset
  std::int64_t frame_rows = 0, frame_cols = 0;
  std::int64_t elems(Buf b) const {
    switch (b) {
      case Buf::In2:
      case Buf::In2Sqr:
        return S * S;
      case Buf::PadCumv:
        return P * P;
      case Buf::PadCumvSel:
      case Buf::SubCumh:
        return C * P;
      case Buf::InSqr:
        return T * T;
      default:  // conv, sub_cumh_sel, sub2, sqr_sub2, tMask, mask_conv
        return C * C;
    }
  }
};

// What an index function may depend on besides the loop indices.
struct Ctx {
  std::int64_t row = 0, col = 0;  // d_Row[point_no], d_Col[point_no] (never moved, see below)
  std::int64_t frame = 0;         // d_common_change.frame_no
};
using IndexFn =
    std::function<std::int64_t(const Ctx&, std::int64_t ei, std::int64_t k, std::int64_t q)>;
using PredFn = std::function<bool(std::int64_t ei)>;
using CountFn = std::function<std::int64_t(std::int64_t ei)>;

// One warp instruction of a stage: address = base(buf) + 4*idx (shared: offset + 4*idx).
struct Op {
  WarpOp op = WarpOp::Compute;
  Buf buf = Buf::Shared;
  std::uint16_t count = 1;  // Compute
  Addr shared = 0;
  IndexFn idx;
  PredFn pred;  // optional: the lanes that take an if
  std::uint32_t pc = 0;
  bool dependent = false;  // a load whose address uses an earlier load (emit_dependent_load)
};

// One stage: `prologue` once, then for (ei = tx; ei < n; ei += 256) { pre; for (k < outer(ei))
// for (q < inner(ei)) body; post }, then (optionally) __syncthreads(). A stage with single_tx >= 0
// is run by that thread only, with ei = 0 and n = 1 (the `if (tx == 0)` blocks).
struct Stage {
  std::string name;
  int single_tx = -1;
  std::int64_t n = 0;
  std::vector<Op> prologue, pre, body, post;
  CountFn outer, inner;  // empty: no loop
  bool barrier = true;
  std::uint32_t entry_pc = 0, barrier_pc = 0;
};

Op cmp(std::uint16_t n) {
  Op o;
  o.count = n;
  return o;
}
Op mem(WarpOp op, Buf b, IndexFn f, PredFn pred = nullptr) {
  Op o;
  o.op = op;
  o.buf = b;
  o.idx = std::move(f);
  o.pred = std::move(pred);
  return o;
}
Op ld(Buf b, IndexFn f, PredFn pred = nullptr) {
  return mem(WarpOp::Load, b, std::move(f), std::move(pred));
}
// A load addressed with values loaded just before (d_Row/d_Col of the point), no instruction
// in between: it must wait for them.
Op ld_dependent(Buf b, IndexFn f) {
  Op o = ld(b, std::move(f));
  o.dependent = true;
  return o;
}
Op st(Buf b, IndexFn f) {
  return mem(WarpOp::Store, b, std::move(f));
}
Op lds(Addr off, IndexFn f) {
  Op o = mem(WarpOp::SharedLoad, Buf::Shared, std::move(f));
  o.shared = off;
  return o;
}
Op sts(Addr off, IndexFn f) {
  Op o = mem(WarpOp::SharedStore, Buf::Shared, std::move(f));
  o.shared = off;
  return o;
}
IndexFn at(std::int64_t i) {
  return [i](const Ctx&, std::int64_t, std::int64_t, std::int64_t) { return i; };
}
IndexFn own() {
  return [](const Ctx&, std::int64_t ei, std::int64_t, std::int64_t) { return ei; };
}

// The stages of kernel.cu in program order (pcs assigned once: one static instruction each).
struct Program {
  Geometry g;
  std::vector<Stage> stages;
  // Stage index ranges per frame kind.
  std::size_t first0 = 0, end0 = 0;            // frame 0: template creation
  std::size_t first_track = 0, end_track = 0;  // frame > 0: tracking
  std::size_t first_upd = 0, end_upd = 0;      // frame % 10 == 0: template update
};

std::shared_ptr<const Program> make_program(const Geometry& g) {
  auto pr = std::make_shared<Program>();
  pr->g = g;
  auto& v = pr->stages;
  const std::int64_t T = g.T, S = g.S, C = g.C, P = g.P, FR = g.frame_rows;
  auto stage = [&](std::string name, std::int64_t n) {
    Stage s;
    s.name = std::move(name);
    s.n = n;
    return s;
  };
  // d_frame[ori_col*frame_rows + ori_row] of the window of half-size h around the point.
  auto frame_window = [FR](std::int64_t rows, std::int64_t h) {
    return [=](const Ctx& c, std::int64_t ei, std::int64_t, std::int64_t) {
      return (c.col - h - 1 + ei / rows) * FR + (c.row - h - 1 + ei % rows);
    };
  };
  // ---------------------------------------------------------------- frame 0
  pr->first0 = v.size();
  {
    Stage s = stage("record start position", 0);  // if (tx == 0)
    s.single_tx = 0;
    s.prologue = {cmp(2), ld(Buf::Row, at(0)), st(Buf::TRowLoc, at(0)), ld(Buf::Col, at(0)),
                  st(Buf::TColLoc, at(0))};
    s.barrier = false;
    v.push_back(std::move(s));
  }
  {
    Stage s = stage("create template", T * T);
    // ori_row = d_Row[point_no] - 25 + row - 1 (and ori_col) inside the loop, as written
    s.pre = {cmp(6),
             ld(Buf::Row, at(0)),
             ld(Buf::Col, at(0)),
             ld_dependent(Buf::Frame, frame_window(T, g.t)),
             st(Buf::T, own()),
             cmp(2)};
    s.barrier = false;
    v.push_back(std::move(s));
  }
  pr->end0 = v.size();
  // ---------------------------------------------------------------- frame > 0
  pr->first_track = v.size();
  {
    Stage s = stage("selection in2", S * S);
    s.prologue = {ld(Buf::Row, at(0)), ld(Buf::Col, at(0))};
    s.pre = {cmp(6), ld(Buf::Frame, frame_window(S, g.s)), st(Buf::In2, own()), cmp(2)};
    v.push_back(std::move(s));
  }
  {
    Stage s = stage("rotation", T * T);
    s.pre = {cmp(8),
             ld(Buf::T, [T](const Ctx&, std::int64_t ei, std::int64_t,
                            std::int64_t) { return (T - 1 - ei / T) * T + (T - 1 - ei % T); }),
             sts(kShModTemp, own()), cmp(2)};
    v.push_back(std::move(s));
  }
  // The 2-D convolutions: per element the ranges [ja1, ja2] x [ia1, ia2] of kernel.cu.
  struct Range {
    std::int64_t lo, hi;
  };
  auto conv_range = [](std::int64_t x, std::int64_t a_size, std::int64_t b_size) {
    // x = j (or i); jp1 = x+1; ja1 = b_size < jp1 ? jp1 - b_size : 1; ja2 = min(a_size, x)
    return Range{x + 1 > b_size ? x + 1 - b_size : 1, std::min(a_size, x)};
  };
  {
    Stage s = stage("convolution", C * C);
    // a = the rotated template (T x T, shared), b = in2 (S x S); ioffset = joffset = 0
    auto ja = [=](std::int64_t ei) { return conv_range(ei / C + 1, T, S); };
    auto ia = [=](std::int64_t ei) { return conv_range(ei % C + 1, T, S); };
    s.pre = {cmp(16)};
    s.outer = [=](std::int64_t ei) { return std::max<std::int64_t>(0, ja(ei).hi - ja(ei).lo + 1); };
    s.inner = [=](std::int64_t ei) { return std::max<std::int64_t>(0, ia(ei).hi - ia(ei).lo + 1); };
    s.body = {lds(kShModTemp,
                  [=](const Ctx&, std::int64_t ei, std::int64_t k, std::int64_t q) {
                    return T * (ja(ei).lo + k - 1) + ia(ei).lo + q - 1;
                  }),
              ld(Buf::In2,
                 [=](const Ctx&, std::int64_t ei, std::int64_t k, std::int64_t q) {
                   const std::int64_t jb = ei / C + 2 - (ja(ei).lo + k);  // jp1 - ja
                   const std::int64_t ib = ei % C + 2 - (ia(ei).lo + q);  // ip1 - ia
                   return S * (jb - 1) + ib - 1;
                 }),
              cmp(3)};  // FMA, ia++, compare
    s.post = {st(Buf::Conv, own()), cmp(2)};
    v.push_back(std::move(s));
  }
  // The sliding-window sums of in2 (src = In2) and in2^2 (src = In2Sqr); the second copy has no
  // __syncthreads() between the subtraction and the horizontal cumulative sum (as in kernel.cu).
  auto cumsums = [&](Buf src, Buf last_sel2, bool second) {
    {
      Stage s = stage("pad", P * P);
      auto inside = [=](std::int64_t ei) {
        const std::int64_t r = ei % P, c = ei / P;
        return r >= T && r < T + S && c >= T && c < T + S;
      };
      s.pre = {cmp(8),
               ld(
                   src,
                   [=](const Ctx&, std::int64_t ei, std::int64_t, std::int64_t) {
                     return (ei / P - T) * S + (ei % P - T);
                   },
                   inside),
               st(Buf::PadCumv, own()), cmp(2)};
      v.push_back(std::move(s));
    }
    {
      Stage s = stage("vertical cumulative sum", P);  // one thread per column
      auto pos = [=](const Ctx&, std::int64_t ei, std::int64_t k, std::int64_t) {
        return ei * P + k;
      };
      s.pre = {cmp(2)};
      s.outer = [=](std::int64_t) { return P; };
      s.inner = [](std::int64_t) { return 1; };
      s.body = {ld(Buf::PadCumv, pos), cmp(1), st(Buf::PadCumv, pos), cmp(2)};
      s.post = {cmp(2)};
      v.push_back(std::move(s));
    }
    {
      Stage s = stage("selection", C * P);  // rows [T+1, P-1] of the padded array
      s.pre = {cmp(6),
               ld(Buf::PadCumv, [=](const Ctx&, std::int64_t ei, std::int64_t,
                                    std::int64_t) { return (ei / C) * P + ei % C + T; }),
               st(Buf::PadCumvSel, own()), cmp(2)};
      v.push_back(std::move(s));
    }
    {
      Stage s = stage("selection 2", C * P);  // rows [1, P-T-1]
      s.pre = {cmp(6),
               ld(Buf::PadCumv, [=](const Ctx&, std::int64_t ei, std::int64_t,
                                    std::int64_t) { return (ei / C) * P + ei % C; }),
               st(Buf::SubCumh, own()), cmp(2)};
      v.push_back(std::move(s));
    }
    {
      Stage s = stage("subtraction", C * P);
      s.pre = {cmp(1), ld(Buf::PadCumvSel, own()), ld(Buf::SubCumh, own()),
               cmp(1), st(Buf::SubCumh, own()),    cmp(2)};
      s.barrier = !second;
      v.push_back(std::move(s));
    }
    {
      Stage s = stage("horizontal cumulative sum", C);  // one thread per row
      auto pos = [=](const Ctx&, std::int64_t ei, std::int64_t k, std::int64_t) {
        return ei + C * k;
      };
      s.pre = {cmp(2)};
      s.outer = [=](std::int64_t) { return P; };
      s.inner = [](std::int64_t) { return 1; };
      s.body = {ld(Buf::SubCumh, pos), cmp(1), st(Buf::SubCumh, pos), cmp(2)};
      s.post = {cmp(2)};
      v.push_back(std::move(s));
    }
    {
      Stage s = stage("selection", C * C);  // columns [T+1, P-1]
      s.pre = {cmp(6),
               ld(Buf::SubCumh, [=](const Ctx&, std::int64_t ei, std::int64_t,
                                    std::int64_t) { return (ei / C + T) * C + ei % C; }),
               st(Buf::SubCumhSel, own()), cmp(2)};
      v.push_back(std::move(s));
    }
    {
      Stage s = stage("selection 2", C * C);  // columns [1, P-T-1]: the same index
      s.pre = {cmp(6),
               ld(Buf::SubCumh, [=](const Ctx&, std::int64_t ei, std::int64_t,
                                    std::int64_t) { return (ei / C) * C + ei % C; }),
               st(last_sel2, own()), cmp(2)};
      v.push_back(std::move(s));
    }
    {
      Stage s = stage("subtraction", C * C);
      s.pre = {cmp(1), ld(Buf::SubCumhSel, own()), ld(last_sel2, own()),
               cmp(1), st(last_sel2, own()),       cmp(2)};
      v.push_back(std::move(s));
    }
  };
  cumsums(Buf::In2, Buf::Sub2, false);
  {
    Stage s = stage("multiplication in2", S * S);
    s.pre = {cmp(1), ld(Buf::In2, own()), cmp(1), st(Buf::In2Sqr, own()), cmp(2)};
    v.push_back(std::move(s));
  }
  cumsums(Buf::In2Sqr, Buf::In2SqrSub2, true);
  {
    Stage s = stage("denominator A", C * C);
    s.pre = {cmp(1), ld(Buf::Sub2, own()),       ld(Buf::In2SqrSub2, own()),
             cmp(8), st(Buf::In2SqrSub2, own()), cmp(2)};
    v.push_back(std::move(s));
  }
  {
    Stage s = stage("multiplication in", T * T);
    s.pre = {cmp(1), ld(Buf::T, own()), cmp(1), st(Buf::InSqr, own()), cmp(2)};
    v.push_back(std::move(s));
  }
  {
    Stage s = stage("in sum", T);  // one thread per template column
    s.pre = {cmp(2)};
    s.outer = [=](std::int64_t) { return T; };
    s.inner = [](std::int64_t) { return 1; };
    s.body = {ld(Buf::T, [=](const Ctx&, std::int64_t ei, std::int64_t k,
                             std::int64_t) { return ei * T + k; }),
              cmp(3)};
    s.post = {sts(kShInPartial, own()), cmp(2)};
    v.push_back(std::move(s));
  }
  {
    Stage s = stage("in_sqr sum", T);  // one thread per template row
    s.pre = {cmp(2)};
    s.outer = [=](std::int64_t) { return T; };
    s.inner = [](std::int64_t) { return 1; };
    s.body = {ld(Buf::InSqr, [=](const Ctx&, std::int64_t ei, std::int64_t k,
                                 std::int64_t) { return ei + T * k; }),
              cmp(3)};
    s.post = {sts(kShInSqrPartial, own()), cmp(2)};
    v.push_back(std::move(s));
  }
  auto sum_loop = [](const Ctx&, std::int64_t, std::int64_t k, std::int64_t) { return k; };
  {
    Stage s = stage("final summation (tx 0)", 1);
    s.single_tx = 0;
    s.outer = [=](std::int64_t) { return T; };
    s.inner = [](std::int64_t) { return 1; };
    s.body = {lds(kShInPartial, sum_loop), cmp(3)};
    s.post = {sts(kShInFinal, at(0))};
    s.barrier = false;  // else if (tx == 1)
    v.push_back(std::move(s));
  }
  {
    Stage s = stage("final summation (tx 1)", 1);
    s.single_tx = 1;
    s.outer = [=](std::int64_t) { return T; };
    s.inner = [](std::int64_t) { return 1; };
    s.body = {lds(kShInSqrPartial, sum_loop), cmp(3)};
    s.post = {sts(kShInSqrFinal, at(0))};
    v.push_back(std::move(s));
  }
  {
    Stage s = stage("denominator T", 0);
    s.single_tx = 0;
    s.prologue = {lds(kShInFinal, at(0)), lds(kShInSqrFinal, at(0)), cmp(12),
                  sts(kShDenomT, at(0))};
    v.push_back(std::move(s));
  }
  {
    Stage s = stage("denominator", C * C);
    s.pre = {cmp(1), ld(Buf::In2SqrSub2, own()), lds(kShDenomT, at(0)),
             cmp(1), st(Buf::In2SqrSub2, own()), cmp(2)};
    v.push_back(std::move(s));
  }
  {
    Stage s = stage("numerator", C * C);
    s.pre = {cmp(1),
             ld(Buf::Conv, own()),
             ld(Buf::Sub2, own()),
             lds(kShInFinal, at(0)),
             cmp(4),
             st(Buf::Conv, own()),
             cmp(2)};
    v.push_back(std::move(s));
  }
  {
    Stage s = stage("correlation", C * C);
    s.pre = {cmp(1), ld(Buf::Conv, own()),       ld(Buf::In2SqrSub2, own()),
             cmp(4), st(Buf::In2SqrSub2, own()), cmp(2)};
    v.push_back(std::move(s));
  }
  {
    Stage s = stage("template mask", C * C);
    // pointer = frame_no-1 + point_no*no_frames (the base of TRowLoc is the point's row)
    auto prev = [](const Ctx& c, std::int64_t, std::int64_t, std::int64_t) { return c.frame - 1; };
    s.prologue = {cmp(2),
                  ld(Buf::TRowLoc, prev),
                  ld(Buf::Row, at(0)),
                  ld(Buf::TColLoc, prev),
                  ld(Buf::Col, at(0)),
                  cmp(4)};
    s.pre = {cmp(3), st(Buf::TMask, own()), cmp(2)};
    v.push_back(std::move(s));
  }
  {
    Stage s = stage("mask convolution", C * C);
    // a = tMask (C x C), b = the maxMove^2 mask of ones; ioffset = joffset = off
    const std::int64_t m = g.m, off = g.off;
    auto ja = [=](std::int64_t ei) { return conv_range(ei / C + 1 + off, C, m); };
    auto ia = [=](std::int64_t ei) { return conv_range(ei % C + 1 + off, C, m); };
    s.pre = {cmp(16)};
    s.outer = [=](std::int64_t ei) { return std::max<std::int64_t>(0, ja(ei).hi - ja(ei).lo + 1); };
    s.inner = [=](std::int64_t ei) { return std::max<std::int64_t>(0, ia(ei).hi - ia(ei).lo + 1); };
    s.body = {
        ld(Buf::TMask, [=](const Ctx&, std::int64_t ei, std::int64_t k,
                           std::int64_t q) { return C * (ja(ei).lo + k - 1) + ia(ei).lo + q - 1; }),
        cmp(3)};
    s.post = {ld(Buf::In2SqrSub2, own()), cmp(1), st(Buf::MaskConv, own()), cmp(2)};
    v.push_back(std::move(s));
  }
  {
    Stage s = stage("maximum: initial search", C);  // one thread per row of mask_conv
    s.pre = {cmp(2)};
    s.outer = [=](std::int64_t) { return C; };
    s.inner = [](std::int64_t) { return 1; };
    s.body = {ld(Buf::MaskConv, [=](const Ctx&, std::int64_t ei, std::int64_t k,
                                    std::int64_t) { return ei * C + k; }),
              cmp(4)};
    s.post = {sts(kShParMaxCoo, own()), sts(kShParMaxVal, own()), cmp(2)};
    v.push_back(std::move(s));
  }
  {
    Stage s = stage("maximum: final search", 1);
    s.single_tx = 0;
    auto cur = [](const Ctx& c, std::int64_t, std::int64_t, std::int64_t) { return c.frame; };
    s.outer = [=](std::int64_t) { return C; };
    s.inner = [](std::int64_t) { return 1; };
    s.body = {lds(kShParMaxVal, sum_loop), lds(kShParMaxCoo, sum_loop), cmp(3)};
    s.post = {cmp(12), ld(Buf::Row, at(0)), st(Buf::TRowLoc, cur), ld(Buf::Col, at(0)),
              st(Buf::TColLoc, cur)};
    v.push_back(std::move(s));
  }
  pr->end_track = v.size();
  // ---------------------------------------------------------------- frame % 10 == 0
  pr->first_upd = v.size();
  {
    Stage s = stage("coordinate and template update", T * T);
    auto cur = [](const Ctx& c, std::int64_t, std::int64_t, std::int64_t) { return c.frame; };
    s.prologue = {cmp(2), ld(Buf::TRowLoc, cur), st(Buf::Row, at(0)), ld(Buf::TColLoc, cur),
                  st(Buf::Col, at(0))};
    s.pre = {cmp(6),
             ld(Buf::Row, at(0)),
             ld(Buf::Col, at(0)),
             ld(Buf::T, own()),
             ld_dependent(Buf::Frame, frame_window(T, g.t)),
             cmp(3),
             st(Buf::T, own()),
             cmp(2)};
    s.barrier = false;
    v.push_back(std::move(s));
  }
  pr->end_upd = v.size();
  // One pc per static instruction.
  std::uint32_t pc = 0;
  for (Stage& s : v) {
    s.entry_pc = pc;
    pc += 8;
    for (auto* ops : {&s.prologue, &s.pre, &s.body, &s.post})
      for (Op& o : *ops) {
        o.pc = pc;
        pc += 8;
      }
    s.barrier_pc = pc;
    pc += 8;
  }
  return pr;
}

struct HeartwallParams {
  std::shared_ptr<const Program> prog;
  std::vector<std::uint32_t> stages;  // run by this launch, in order
  std::int64_t frame = 0;
  std::uint32_t exit_pc = 0;
  // Scaled point coordinates, CTA order (endo then epi).
  std::shared_ptr<const std::vector<std::array<std::int64_t, 2>>> points;
  Addr frame_buf = 0;
  Addr row[2] = {}, col[2] = {}, trow[2] = {}, tcol[2] = {}, tmpl[2] = {};  // [endo, epi]
  Addr per_point[kPerPointBufs] = {};
  std::uint64_t slice[kPerPointBufs] = {};  // bytes between the points' buffers
};

class HeartwallStream final : public CoroutineStream {
 public:
  HeartwallStream(const WarpContext& w, const HeartwallParams& p) : w_(w), p_(p) {
    const std::uint32_t bx = w.block_idx().x;
    const bool epi = bx >= kEndo;
    const std::uint32_t point_no = epi ? bx - kEndo : bx;
    const std::int64_t T = p.prog->g.T;
    ctx_.row = (*p.points)[bx][0];
    ctx_.col = (*p.points)[bx][1];
    ctx_.frame = p.frame;
    const std::uint16_t e = epi ? 1 : 0;
    set(Buf::Frame, kFrame, p.frame_buf);
    set(Buf::Row, epi ? kEpiRowDs : kEndoRowDs, p.row[e] + 4 * point_no);
    set(Buf::Col, epi ? kEpiColDs : kEndoColDs, p.col[e] + 4 * point_no);
    set(Buf::TRowLoc, epi ? kTEpiRowLoc : kTEndoRowLoc, p.trow[e] + 4 * point_no * kNoFrames);
    set(Buf::TColLoc, epi ? kTEpiColLoc : kTEndoColLoc, p.tcol[e] + 4 * point_no * kNoFrames);
    set(Buf::T, epi ? kEpiT : kEndoT, p.tmpl[e] + 4 * Addr(point_no) * T * T);  // in_pointer
    for (int b = 0; b < kPerPointBufs; ++b)
      set(static_cast<Buf>(static_cast<int>(Buf::In2) + b), kFirstPerPoint + b,
          p.per_point[b] + p.slice[b] * bx);
  }

  bool next(WarpInst& in) override {
    LOCSIM_CO_BEGIN;
    for (si_ = 0; si_ < p_.stages.size(); ++si_) {
      st_ = &p_.prog->stages[p_.stages[si_]];
      threads_ = st_->single_tx < 0 ? w_.live_mask() : w_.lanes_where([this](unsigned l) {
        return static_cast<int>(w_.thread_idx(l).x) == st_->single_tx;
      });
      if (threads_) {
        LOCSIM_CO_YIELD(emit_compute(in, st_->entry_pc, threads_, 2, kAluLatency));
        act_ = threads_;
        r_ = k_ = q_ = 0;
        for (oi_ = 0; oi_ < st_->prologue.size(); ++oi_) {
          if (prepare(st_->prologue[oi_])) LOCSIM_CO_YIELD(emit(in, st_->prologue[oi_]));
        }
        for (r_ = 0;; ++r_) {
          act_ = w_.lanes_where(
              [this](unsigned l) { return ((threads_ >> l) & 1u) && ei(l) < st_->n; });
          if (!act_) break;
          round_ = act_;
          k_ = q_ = 0;
          for (oi_ = 0; oi_ < st_->pre.size(); ++oi_) {
            if (prepare(st_->pre[oi_])) LOCSIM_CO_YIELD(emit(in, st_->pre[oi_]));
          }
          if (st_->outer) {
            kmax_ = 0;
            for (unsigned l = 0; l < kLanesPerWarp; ++l)
              if ((round_ >> l) & 1u) {
                outer_[l] = st_->outer(ei(l));
                inner_[l] = st_->inner(ei(l));
                kmax_ = std::max(kmax_, outer_[l]);
              }
            for (k_ = 0; k_ < kmax_; ++k_) {
              outer_act_ = 0;
              qmax_ = 0;
              for (unsigned l = 0; l < kLanesPerWarp; ++l)
                if (((round_ >> l) & 1u) && k_ < outer_[l]) {
                  outer_act_ |= 1u << l;
                  qmax_ = std::max(qmax_, inner_[l]);
                }
              for (q_ = 0; q_ < qmax_; ++q_) {
                act_ = 0;
                for (unsigned l = 0; l < kLanesPerWarp; ++l)
                  if (((outer_act_ >> l) & 1u) && q_ < inner_[l]) act_ |= 1u << l;
                for (oi_ = 0; oi_ < st_->body.size(); ++oi_) {
                  if (prepare(st_->body[oi_])) LOCSIM_CO_YIELD(emit(in, st_->body[oi_]));
                }
              }
            }
            k_ = q_ = 0;
          }
          act_ = round_;
          for (oi_ = 0; oi_ < st_->post.size(); ++oi_) {
            if (prepare(st_->post[oi_])) LOCSIM_CO_YIELD(emit(in, st_->post[oi_]));
          }
          if (st_->single_tx >= 0) break;  // one element
        }
      }
      if (st_->barrier) LOCSIM_CO_YIELD(emit_barrier(in, st_->barrier_pc, w_.live_mask()));
    }
    LOCSIM_CO_YIELD(emit_exit(in, p_.exit_pc, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  void set(Buf b, std::uint16_t ds, Addr base) {
    ds_[static_cast<int>(b)] = ds;
    base_[static_cast<int>(b)] = base;
  }
  std::int64_t ei(unsigned l) const {
    return st_->single_tx >= 0 ? 0 : std::int64_t{w_.thread_idx(l).x} + kThreads * r_;
  }
  // The op's active lanes (act_ and its predicate) into mask_; false if none.
  bool prepare(const Op& o) {
    mask_ = o.pred ? w_.lanes_where([&](unsigned l) { return ((act_ >> l) & 1u) && o.pred(ei(l)); })
                   : act_;
    return mask_ != 0;
  }
  void emit(WarpInst& in, const Op& o) const {
    if (o.op == WarpOp::Compute) {
      emit_compute(in, o.pc, mask_, o.count, kAluLatency);
      return;
    }
    const bool shared = o.buf == Buf::Shared;
    const Addr base = shared ? o.shared : base_[static_cast<int>(o.buf)];
    const std::uint16_t ds = shared ? kNoDataStructure : ds_[static_cast<int>(o.buf)];
    emit_memory(in, o.op, o.pc, mask_, ds, 4, [&](unsigned l) {
      return base + static_cast<Addr>(4 * o.idx(ctx_, ei(l), k_, q_));
    });
    if (o.dependent) in.wait_all_loads = true;
  }

  WarpContext w_;
  HeartwallParams p_;
  Ctx ctx_;
  std::array<std::uint16_t, static_cast<int>(Buf::Shared)> ds_{};
  std::array<Addr, static_cast<int>(Buf::Shared)> base_{};
  const Stage* st_ = nullptr;
  std::size_t si_ = 0, oi_ = 0;
  std::int64_t r_ = 0, k_ = 0, q_ = 0, kmax_ = 0, qmax_ = 0;
  std::uint32_t threads_ = 0, act_ = 0, round_ = 0, outer_act_ = 0, mask_ = 0;
  std::array<std::int64_t, kLanesPerWarp> outer_{}, inner_{};
};

WorkloadParamDecls params() {
  return {{"frames", {"2", "frames processed, one launch each (Rodinia's run script: 20)"}},
          {"shrink",
           {"5",
            "divides the 609x590 frame, the point coordinates, tSize (25), sSize (40) and "
            "maxMove (10); 1 = Rodinia's sizes"}}};
}

std::unique_ptr<Workload> make_heartwall(const WorkloadArgs& args) {
  WorkloadArgReader r("heartwall", params(), args);
  const std::uint32_t frames = r.get_u32("frames", {1, kNoFrames, 1, ""});
  const std::uint32_t shrink = r.get_u32("shrink", {1, 10, 1, ""});
  // x/shrink rounded to the nearest integer (halves up)
  auto scaled = [shrink](std::int64_t x) { return (2 * x + shrink) / (2 * shrink); };
  Geometry g;
  g.t = scaled(kTSize);
  g.s = scaled(kSSize);
  g.m = std::max<std::int64_t>(1, scaled(kMaxMove));
  g.T = 2 * g.t + 1;
  g.S = 2 * g.s + 1;
  g.C = g.T + g.S - 1;
  g.P = g.S + 2 * g.T;
  g.off = (g.m - 1) / 2 + ((g.m - 1) % 2 ? 1 : 0);
  g.frame_rows = scaled(kFrameRows);
  g.frame_cols = scaled(kFrameCols);
  auto points = std::make_shared<std::vector<std::array<std::int64_t, 2>>>();
  for (std::uint32_t i = 0; i < kEndo; ++i)
    points->push_back({scaled(kEndoRow[i]), scaled(kEndoCol[i])});
  for (std::uint32_t i = 0; i < kEpi; ++i)
    points->push_back({scaled(kEpiRow[i]), scaled(kEpiCol[i])});
  for (const auto& pt : *points)  // every window stays inside the frame
    if (pt[0] - g.s - 1 < 0 || pt[0] + g.s - 1 >= g.frame_rows || pt[1] - g.s - 1 < 0 ||
        pt[1] + g.s - 1 >= g.frame_cols)
      throw std::logic_error("heartwall: a search window leaves the frame");
  auto prog = make_program(g);

  DeviceAllocator alloc;
  HeartwallParams base;
  base.prog = prog;
  base.points = points;
  const std::uint64_t frame_bytes = 4ull * g.frame_rows * g.frame_cols;
  const std::uint64_t in_bytes = 4ull * g.T * g.T;
  base.frame_buf = alloc.alloc(frame_bytes);
  const std::uint32_t npts[2] = {kEndo, kEpi};
  for (int e = 0; e < 2; ++e) {
    base.row[e] = alloc.alloc(4 * npts[e]);
    base.col[e] = alloc.alloc(4 * npts[e]);
    base.trow[e] = alloc.alloc(4 * npts[e] * kNoFrames);
    base.tcol[e] = alloc.alloc(4 * npts[e] * kNoFrames);
    base.tmpl[e] = alloc.alloc(in_bytes * npts[e]);
  }
  // The per-point buffers are 51 cudaMallocs each; here one array per kind with the points'
  // buffers 256-byte aligned (cudaMalloc's alignment), point bx's at slice*bx.
  for (int b = 0; b < kPerPointBufs; ++b) {
    const std::uint64_t bytes = 4ull * g.elems(static_cast<Buf>(static_cast<int>(Buf::In2) + b));
    base.slice[b] = (bytes + 255) / 256 * 256;
    base.per_point[b] = alloc.alloc(base.slice[b] * kAll);
  }
  // Locality Descriptors (heartwall is not in seed 000's Table 2).
  // d_frame: each CTA reads the windows around its point, and the windows of points that are
  // neighbours on the wall contour overlap; the contour is not a grid, so the whole frame is one
  // D-Tile shared by the grid: INTER-THREAD (NEARBY, IRREGULAR).
  const auto frame_desc = inter_thread(
      SharingType::Nearby, AccessPattern::Irregular,
      {static_cast<std::uint32_t>(g.frame_rows), static_cast<std::uint32_t>(g.frame_cols), 1},
      {kAll, 1, 1}, {0, 0, 0});
  // Everything else is private to one point (CTA) and re-read by other threads of that CTA in
  // later stages (or, for d_Row/d_Col, read by all its threads): INTER-THREAD (COACCESSED,
  // REGULAR) with one D-Tile per CTA, mapped 1:1.
  auto per_cta = [](std::uint64_t elems) {
    return inter_thread(SharingType::CoAccessed, AccessPattern::Regular,
                        {static_cast<std::uint32_t>(elems), 1, 1}, {1, 1, 1}, {1, 0, 0});
  };
  std::vector<DataStructure> data = {{"d_frame", base.frame_buf, frame_bytes, 4, {frame_desc}}};
  const char* side[2] = {"endo", "epi"};
  for (int e = 0; e < 2; ++e) {
    const std::string s = side[e];
    const std::string cap = e ? "Epi" : "Endo";
    data.push_back({"d_" + s + "Row", base.row[e], 4ull * npts[e], 4, {per_cta(1)}});
    data.push_back({"d_" + s + "Col", base.col[e], 4ull * npts[e], 4, {per_cta(1)}});
    data.push_back({"d_t" + cap + "RowLoc",
                    base.trow[e],
                    4ull * npts[e] * kNoFrames,
                    4,
                    {per_cta(kNoFrames)}});
    data.push_back({"d_t" + cap + "ColLoc",
                    base.tcol[e],
                    4ull * npts[e] * kNoFrames,
                    4,
                    {per_cta(kNoFrames)}});
    data.push_back({"d_" + s + "T", base.tmpl[e], in_bytes * npts[e], 4, {per_cta(g.T * g.T)}});
  }
  for (int b = 0; b < kPerPointBufs; ++b)
    data.push_back({kPerPointNames[b],
                    base.per_point[b],
                    base.slice[b] * kAll,
                    4,
                    {per_cta(base.slice[b] / 4)}});

  const std::uint32_t exit_pc = prog->stages.back().barrier_pc + 8;
  std::vector<std::unique_ptr<Kernel>> ks;
  for (std::uint32_t f = 0; f < frames; ++f) {
    HeartwallParams p = base;
    p.frame = f;
    p.exit_pc = exit_pc;
    auto add = [&](std::size_t a, std::size_t b) {
      for (std::size_t i = a; i < b; ++i) p.stages.push_back(static_cast<std::uint32_t>(i));
    };
    if (f == 0) add(prog->first0, prog->end0);
    if (f != 0) add(prog->first_track, prog->end_track);
    if (f != 0 && f % 10 == 0) add(prog->first_upd, prog->end_upd);
    KernelShape s;
    s.name = "kernel";
    s.grid = {kAll, 1, 1};
    s.block = {static_cast<std::uint32_t>(kThreads), 1, 1};
    s.regs_per_thread = 32;
    s.shared_mem_bytes = kSharedBytes;
    ks.push_back(make_grid_kernel<HeartwallStream>(std::move(s), data, std::move(p)));
  }
  return std::make_unique<KernelListWorkload>(
      "heartwall",
      "Rodinia heartwall, " + std::to_string(frames) + " frames of " +
          std::to_string(g.frame_cols) + "x" + std::to_string(g.frame_rows) +
          ", 51 points, template " + std::to_string(g.T) + "x" + std::to_string(g.T) +
          ", search window " + std::to_string(g.S) + "x" + std::to_string(g.S),
      std::move(ks));
}

}  // namespace

WorkloadInfo heartwall_workload() {
  return {"heartwall",
          "Rodinia",
          "heart wall tracking, one launch per frame, one CTA per sample point",
          "frames=2, shrink=5 (122x118 frames, template 11x11, search window 17x17)",
          params(),
          make_heartwall,
          // PAVER Table 2: 51 TBs (one per sample point) at Rodinia's full frame size.
          {{"paver", {{"shrink", "1"}}}}};
}

}  // namespace locsim
