// Rodinia backprop (cuda/backprop/backprop_cuda_kernel.cu), the two kernels of one training step
// of a (in, 16, 1) network, both launched as grid (1, in/16), block (16, 16) (WIDTH = HEIGHT = 16,
// hid = 16, so weight rows are hid+1 = 17 floats long):
//   bpnn_layerforward_CUDA: index = 17*16*by + 17*ty + tx + 1 + 17;  index_in = 16*by + ty + 1;
//     if (tx == 0) input_node[ty] = input[index_in];  sync;
//     weight_matrix[ty][tx] = input_hidden[index];  sync;  wm[ty][tx] *= input_node[ty];  sync;
//     for (i = 1; i <= 4; i++) { p = 2^i; if (ty % p == 0) wm[ty][tx] += wm[ty + p/2][tx]; sync; }
//     input_hidden[index] = wm[ty][tx];  sync;
//     if (tx == 0) hidden_partial_sum[by*hid + ty] = wm[tx][ty];
//   bpnn_adjust_weights_cuda: index as above, index_y = 16*by + ty + 1, index_x = tx + 1;
//     w[index] += ETA*delta[index_x]*ly[index_y] + MOMENTUM*oldw[index];
//     oldw[index] = ETA*delta[index_x]*ly[index_y] + MOMENTUM*oldw[index];  sync;
//     if (ty == 0 && by == 0) { w[index_x] += ...delta[index_x]...oldw[index_x]; oldw[index_x] =
//     ...; }
// Each warp holds two rows ty = 2*warp, 2*warp+1.
#include <memory>
#include <string>

#include "stimuli/builtin_workloads.h"
#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo backprop_workload();

namespace {

constexpr std::uint32_t kW = 16;    // WIDTH = HEIGHT
constexpr std::uint32_t kHid = 16;  // hidden units (facetrain.c: bpnn_create(in, 16, 1))
constexpr std::uint32_t kRow = kHid + 1;
// Shared memory of layerforward: input_node[16] then weight_matrix[16][16].
constexpr Addr kInputNode = 0, kWm = kW * 4;

struct BpParams {
  std::uint32_t in = 0;
  Addr input = 0, input_hidden = 0, partial = 0, delta = 0, oldw = 0;
};

// Data-structure indices of the two kernels.
enum : std::uint16_t { kFwdInput, kFwdWeights, kFwdPartial };
enum : std::uint16_t { kAdjDelta, kAdjLy, kAdjW, kAdjOldw };

// Per-lane index arithmetic shared by both kernels.
struct BpIdx {
  const WarpContext* w;
  std::uint64_t tx(unsigned l) const { return w->thread_idx(l).x; }
  std::uint64_t ty(unsigned l) const { return w->thread_idx(l).y; }
  std::uint64_t by() const { return w->block_idx().y; }
  std::uint64_t index(unsigned l) const {
    return kRow * kW * by() + kRow * ty(l) + tx(l) + 1 + kRow;
  }
  std::uint64_t index_in(unsigned l) const { return kW * by() + ty(l) + 1; }
  std::uint64_t index_x(unsigned l) const { return tx(l) + 1; }
};

enum : std::uint32_t {
  kPcFLdIn = 0x00,
  kPcFStsNode = 0x08,
  kPcFBar0 = 0x10,
  kPcFLdW = 0x18,
  kPcFStsWm = 0x20,
  kPcFBar1 = 0x28,
  kPcFLdsWm = 0x30,
  kPcFLdsNode = 0x38,
  kPcFMul = 0x40,
  kPcFStsMul = 0x48,
  kPcFBar2 = 0x50,
  kPcFRed = 0x58,  // + 0x28 * (i-1): LDS, LDS, FADD, STS, BAR (unrolled, log2(16) = 4)
  kPcFLdsOut = kPcFRed + 0x28 * 4,
  kPcFStW = kPcFLdsOut + 0x08,
  kPcFBar3 = kPcFStW + 0x08,
  kPcFLdsT = kPcFBar3 + 0x08,
  kPcFStPartial = kPcFLdsT + 0x08,
  kPcFExit = kPcFStPartial + 0x08
};

class ForwardStream final : public CoroutineStream {
 public:
  ForwardStream(const WarpContext& w, const BpParams& p) : w_(w), p_(p), ix_{&w_} {
    tx0_ = w_.lanes_where([this](unsigned l) { return ix_.tx(l) == 0; });
  }

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    LOCSIM_CO_YIELD(emit_load(in, kPcFLdIn, tx0_, kFwdInput,
                              [this](unsigned l) { return p_.input + 4 * ix_.index_in(l); }));
    LOCSIM_CO_YIELD(emit_shared_store(in, kPcFStsNode, tx0_,
                                      [this](unsigned l) { return kInputNode + 4 * ix_.ty(l); }));
    LOCSIM_CO_YIELD(emit_barrier(in, kPcFBar0, all));
    LOCSIM_CO_YIELD(emit_load(in, kPcFLdW, all, kFwdWeights,
                              [this](unsigned l) { return p_.input_hidden + 4 * ix_.index(l); }));
    LOCSIM_CO_YIELD(emit_shared_store(in, kPcFStsWm, all, [this](unsigned l) { return wm(l, 0); }));
    LOCSIM_CO_YIELD(emit_barrier(in, kPcFBar1, all));
    LOCSIM_CO_YIELD(emit_shared_load(in, kPcFLdsWm, all, [this](unsigned l) { return wm(l, 0); }));
    LOCSIM_CO_YIELD(emit_shared_load(in, kPcFLdsNode, all,
                                     [this](unsigned l) { return kInputNode + 4 * ix_.ty(l); }));
    LOCSIM_CO_YIELD(emit_compute(in, kPcFMul, all, 1, kAluLatency));
    LOCSIM_CO_YIELD(
        emit_shared_store(in, kPcFStsMul, all, [this](unsigned l) { return wm(l, 0); }));
    LOCSIM_CO_YIELD(emit_barrier(in, kPcFBar2, all));
    for (i_ = 1; i_ <= 4; ++i_) {
      red_ = w_.lanes_where([this](unsigned l) { return ix_.ty(l) % (1u << i_) == 0; });
      if (red_) {
        LOCSIM_CO_YIELD(
            emit_shared_load(in, pc_red(0), red_, [this](unsigned l) { return wm(l, 0); }));
        LOCSIM_CO_YIELD(emit_shared_load(in, pc_red(1), red_,
                                         [this](unsigned l) { return wm(l, (1u << i_) / 2); }));
        LOCSIM_CO_YIELD(emit_compute(in, pc_red(2), red_, 1, kAluLatency));
        LOCSIM_CO_YIELD(
            emit_shared_store(in, pc_red(3), red_, [this](unsigned l) { return wm(l, 0); }));
      }
      LOCSIM_CO_YIELD(emit_barrier(in, pc_red(4), all));
    }
    LOCSIM_CO_YIELD(emit_shared_load(in, kPcFLdsOut, all, [this](unsigned l) { return wm(l, 0); }));
    LOCSIM_CO_YIELD(emit_store(in, kPcFStW, all, kFwdWeights,
                               [this](unsigned l) { return p_.input_hidden + 4 * ix_.index(l); }));
    LOCSIM_CO_YIELD(emit_barrier(in, kPcFBar3, all));
    LOCSIM_CO_YIELD(emit_shared_load(in, kPcFLdsT, tx0_, [this](unsigned l) {  // wm[tx][ty], tx = 0
      return kWm + 4 * (ix_.tx(l) * kW + ix_.ty(l));
    }));
    LOCSIM_CO_YIELD(emit_store(in, kPcFStPartial, tx0_, kFwdPartial, [this](unsigned l) {
      return p_.partial + 4 * (ix_.by() * kHid + ix_.ty(l));
    }));
    LOCSIM_CO_YIELD(emit_exit(in, kPcFExit, all));
    LOCSIM_CO_END;
  }

 private:
  std::uint32_t pc_red(std::uint32_t k) const { return kPcFRed + 0x28 * (i_ - 1) + 0x08 * k; }
  Addr wm(unsigned l, std::uint64_t dy) const {  // weight_matrix[ty + dy][tx]
    return kWm + 4 * ((ix_.ty(l) + dy) * kW + ix_.tx(l));
  }

  WarpContext w_;
  BpParams p_;
  BpIdx ix_;
  std::uint32_t tx0_ = 0, red_ = 0, i_ = 0;
};

enum : std::uint32_t {
  kPcALdDelta = 0x00,
  kPcALdLy = 0x08,
  kPcALdOldw = 0x10,
  kPcALdW = 0x18,
  kPcAFma = 0x20,
  kPcAStW = 0x28,
  kPcALdDelta2 = 0x30,  // reloads: the store to w may alias delta, ly and oldw
  kPcALdLy2 = 0x38,
  kPcALdOldw2 = 0x40,
  kPcAFma2 = 0x48,
  kPcAStOldw = 0x50,
  kPcABar = 0x58,
  kPcBLdDelta = 0x60,  // the by == 0, ty == 0 bias-row update
  kPcBLdOldw = 0x68,
  kPcBLdW = 0x70,
  kPcBFma = 0x78,
  kPcBStW = 0x80,
  kPcBLdDelta2 = 0x88,
  kPcBLdOldw2 = 0x90,
  kPcBFma2 = 0x98,
  kPcBStOldw = 0xa0,
  kPcAExit = 0xa8
};

class AdjustStream final : public CoroutineStream {
 public:
  AdjustStream(const WarpContext& w, const BpParams& p) : w_(w), p_(p), ix_{&w_} {
    bias_ = w_.lanes_where([this](unsigned l) { return ix_.ty(l) == 0 && ix_.by() == 0; });
  }

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    auto delta = [this](unsigned l) { return p_.delta + 4 * ix_.index_x(l); };
    auto ly = [this](unsigned l) { return p_.input + 4 * ix_.index_in(l); };
    auto w = [this](unsigned l) { return p_.input_hidden + 4 * ix_.index(l); };
    auto oldw = [this](unsigned l) { return p_.oldw + 4 * ix_.index(l); };
    auto wx = [this](unsigned l) { return p_.input_hidden + 4 * ix_.index_x(l); };
    auto oldwx = [this](unsigned l) { return p_.oldw + 4 * ix_.index_x(l); };
    LOCSIM_CO_BEGIN;
    LOCSIM_CO_YIELD(emit_load(in, kPcALdDelta, all, kAdjDelta, delta));
    LOCSIM_CO_YIELD(emit_load(in, kPcALdLy, all, kAdjLy, ly));
    LOCSIM_CO_YIELD(emit_load(in, kPcALdOldw, all, kAdjOldw, oldw));
    LOCSIM_CO_YIELD(emit_load(in, kPcALdW, all, kAdjW, w));
    LOCSIM_CO_YIELD(emit_compute(in, kPcAFma, all, 4, kAluLatency));
    LOCSIM_CO_YIELD(emit_store(in, kPcAStW, all, kAdjW, w));
    LOCSIM_CO_YIELD(emit_load(in, kPcALdDelta2, all, kAdjDelta, delta));
    LOCSIM_CO_YIELD(emit_load(in, kPcALdLy2, all, kAdjLy, ly));
    LOCSIM_CO_YIELD(emit_load(in, kPcALdOldw2, all, kAdjOldw, oldw));
    LOCSIM_CO_YIELD(emit_compute(in, kPcAFma2, all, 3, kAluLatency));
    LOCSIM_CO_YIELD(emit_store(in, kPcAStOldw, all, kAdjOldw, oldw));
    LOCSIM_CO_YIELD(emit_barrier(in, kPcABar, all));
    if (bias_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcBLdDelta, bias_, kAdjDelta, delta));
      LOCSIM_CO_YIELD(emit_load(in, kPcBLdOldw, bias_, kAdjOldw, oldwx));
      LOCSIM_CO_YIELD(emit_load(in, kPcBLdW, bias_, kAdjW, wx));
      LOCSIM_CO_YIELD(emit_compute(in, kPcBFma, bias_, 3, kAluLatency));
      LOCSIM_CO_YIELD(emit_store(in, kPcBStW, bias_, kAdjW, wx));
      LOCSIM_CO_YIELD(emit_load(in, kPcBLdDelta2, bias_, kAdjDelta, delta));
      LOCSIM_CO_YIELD(emit_load(in, kPcBLdOldw2, bias_, kAdjOldw, oldwx));
      LOCSIM_CO_YIELD(emit_compute(in, kPcBFma2, bias_, 2, kAluLatency));
      LOCSIM_CO_YIELD(emit_store(in, kPcBStOldw, bias_, kAdjOldw, oldwx));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcAExit, all));
    LOCSIM_CO_END;
  }

 private:
  WarpContext w_;
  BpParams p_;
  BpIdx ix_;
  std::uint32_t bias_ = 0;
};

WorkloadParamDecls params() {
  return {{"in", {"16384", "input-layer units (a multiple of 16; one CTA per 16 inputs)"}}};
}

std::unique_ptr<Workload> make_backprop(const WorkloadArgs& args) {
  WorkloadArgReader r("backprop", params(), args);
  BpParams p;
  p.in = r.get_u32("in", {kW, 1u << 22, kW, "each CTA takes 16 input units"});
  const std::uint32_t blocks = p.in / kW;
  const std::uint64_t wbytes = std::uint64_t{p.in + 1} * kRow * 4;
  DeviceAllocator alloc;
  p.input = alloc.alloc(std::uint64_t{p.in + 1} * 4);
  const Addr out_hidden = alloc.alloc(kRow * 4);  // output_hidden_cuda: allocated, never touched
  (void)out_hidden;
  p.input_hidden = alloc.alloc(wbytes);
  p.partial = alloc.alloc(std::uint64_t{blocks} * kW * 4);
  p.delta = alloc.alloc(kRow * 4);
  p.oldw = alloc.alloc(wbytes);
  // input[16by+ty+1] is read by the 16 threads of row ty of one CTA (COACCESSED by one CTA; the
  // element tile is the CTA's 16 inputs); weights are streamed once per kernel (NO-REUSE).
  const auto in_desc = inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {kW, 1, 1},
                                    {1, 1, 1}, {0, 1, 0}, kW);
  // delta[1..16] is read by every CTA: one D-Tile shared by the whole grid.
  const auto delta_desc = inter_thread(SharingType::CoAccessed, AccessPattern::Regular,
                                       {kRow, 1, 1}, {1, blocks, 1}, {0, 0, 0});
  std::vector<std::unique_ptr<Kernel>> ks;
  {
    std::vector<DataStructure> data = {
        {"input_cuda", p.input, std::uint64_t{p.in + 1} * 4, 4, {in_desc}},
        {"input_hidden_cuda", p.input_hidden, wbytes, 4, {no_reuse()}},
        {"hidden_partial_sum", p.partial, std::uint64_t{blocks} * kW * 4, 4, {no_reuse()}}};
    KernelShape shape;
    shape.name = "bpnn_layerforward_CUDA";
    shape.grid = {1, blocks, 1};
    shape.block = {kW, kW, 1};
    shape.regs_per_thread = 14;
    shape.shared_mem_bytes = (kW + kW * kW) * 4;
    ks.push_back(make_grid_kernel<ForwardStream>(std::move(shape), std::move(data), p));
  }
  {
    std::vector<DataStructure> data = {{"delta", p.delta, kRow * 4, 4, {delta_desc}},
                                       {"ly", p.input, std::uint64_t{p.in + 1} * 4, 4, {in_desc}},
                                       {"w", p.input_hidden, wbytes, 4, {no_reuse()}},
                                       {"oldw", p.oldw, wbytes, 4, {no_reuse()}}};
    KernelShape shape;
    shape.name = "bpnn_adjust_weights_cuda";
    shape.grid = {1, blocks, 1};
    shape.block = {kW, kW, 1};
    shape.regs_per_thread = 14;
    ks.push_back(make_grid_kernel<AdjustStream>(std::move(shape), std::move(data), p));
  }
  return std::make_unique<KernelListWorkload>(
      "backprop", "Rodinia backprop, " + std::to_string(p.in) + " input units x 16 hidden",
      std::move(ks));
}

}  // namespace

WorkloadInfo backprop_workload() {
  return {"backprop",
          "Rodinia",
          "neural-network layer forward (shared-memory reduction) and weight adjustment",
          "in=16384 input units, 16 hidden",
          params(),
          make_backprop,
          // PAVER Table 2: 4096 TBs = 65536 inputs / 16.
          {{"paver", {{"in", "65536"}}}}};
}

}  // namespace locsim
