// CUDA SDK dct8x8 (samples/3_Imaging/dct8x8/dct8x8_kernel1.cuh), CUDAkernel1DCT then
// CUDAkernel1IDCT: one 8x8 pixel block per CTA, block (8, 8), grid (width/8, height/8):
//   OffsTexX = bx*8 + tx;  OffsTexY = by*8 + ty;
//   CurBlockLocal1[ty*8 + tx] = tex2D(TexSrc, OffsTexX, OffsTexY);   __syncthreads();
//   for (i = 0; i < 8; i++) curelem += DCTv8matrix[i*8 + ty] * CurBlockLocal1[i*8 + tx];
//   CurBlockLocal2[ty*8 + tx] = curelem;                                __syncthreads();
//   for (i = 0; i < 8; i++) curelem += CurBlockLocal2[ty*8 + i] * DCTv8matrix[i*8 + tx];
//   CurBlockLocal1[ty*8 + tx] = curelem;                                __syncthreads();
//   Dst[OffsTexY*ImgWidth + OffsTexX] = CurBlockLocal1[ty*8 + tx];
// The inverse kernel has the same structure with the transposed matrix; it reads the forward
// kernel's coefficients. Texture fetches are modelled as global loads; the __constant__
// DCTv8matrix operand is folded into the FFMA (no constant cache in the model).
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo dct8x8_workload();

namespace {

constexpr std::uint32_t kB = 8;
constexpr Addr kLocal1 = 0, kLocal2 = kB * kB * 4;
enum : std::uint16_t { kSrc, kDst };

enum : std::uint32_t {
  kPcLd = 0x00,
  kPcSts1 = 0x08,
  kPcBar1 = 0x10,
  kPcCol = 0x18,  // + 0x10*i: LDS CurBlockLocal1[i*8+tx], FFMA
  kPcSts2 = 0x98,
  kPcBar2 = 0xa0,
  kPcRow = 0xa8,  // + 0x10*i: LDS CurBlockLocal2[ty*8+i], FFMA
  kPcSts3 = 0x128,
  kPcBar3 = 0x130,
  kPcLds = 0x138,
  kPcSt = 0x140,
  kPcExit = 0x148
};

struct DctParams {
  std::uint32_t width = 0;
  Addr src = 0, dst = 0;
};

class DctStream final : public CoroutineStream {
 public:
  DctStream(const WarpContext& w, const DctParams& p) : w_(w), p_(p) {}

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    LOCSIM_CO_YIELD(emit_load(in, kPcLd, all, kSrc, [this](unsigned l) { return pix(p_.src, l); }));
    LOCSIM_CO_YIELD(emit_shared_store(
        in, kPcSts1, all, [this](unsigned l) { return kLocal1 + 4 * (ty(l) * kB + tx(l)); }));
    LOCSIM_CO_YIELD(emit_barrier(in, kPcBar1, all));
    for (i_ = 0; i_ < kB; ++i_) {
      LOCSIM_CO_YIELD(emit_shared_load(in, kPcCol + 0x10 * i_, all, [this](unsigned l) {
        return kLocal1 + 4 * (i_ * kB + tx(l));
      }));
      LOCSIM_CO_YIELD(emit_compute(in, kPcCol + 0x10 * i_ + 8, all, 1, kAluLatency));
    }
    LOCSIM_CO_YIELD(emit_shared_store(
        in, kPcSts2, all, [this](unsigned l) { return kLocal2 + 4 * (ty(l) * kB + tx(l)); }));
    LOCSIM_CO_YIELD(emit_barrier(in, kPcBar2, all));
    for (i_ = 0; i_ < kB; ++i_) {
      LOCSIM_CO_YIELD(emit_shared_load(in, kPcRow + 0x10 * i_, all, [this](unsigned l) {
        return kLocal2 + 4 * (ty(l) * kB + i_);
      }));
      LOCSIM_CO_YIELD(emit_compute(in, kPcRow + 0x10 * i_ + 8, all, 1, kAluLatency));
    }
    LOCSIM_CO_YIELD(emit_shared_store(
        in, kPcSts3, all, [this](unsigned l) { return kLocal1 + 4 * (ty(l) * kB + tx(l)); }));
    LOCSIM_CO_YIELD(emit_barrier(in, kPcBar3, all));
    LOCSIM_CO_YIELD(emit_shared_load(
        in, kPcLds, all, [this](unsigned l) { return kLocal1 + 4 * (ty(l) * kB + tx(l)); }));
    LOCSIM_CO_YIELD(
        emit_store(in, kPcSt, all, kDst, [this](unsigned l) { return pix(p_.dst, l); }));
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, all));
    LOCSIM_CO_END;
  }

 private:
  std::uint32_t tx(unsigned l) const { return w_.thread_idx(l).x; }
  std::uint32_t ty(unsigned l) const { return w_.thread_idx(l).y; }
  Addr pix(Addr base, unsigned l) const {
    return base + 4 * (w_.global_y(l) * p_.width + w_.global_x(l));
  }

  WarpContext w_;
  DctParams p_;
  std::uint32_t i_ = 0;
};

WorkloadParamDecls params() {
  return {{"width", {"512", "image width in pixels (a multiple of 8)"}},
          {"height", {"512", "image height in pixels (a multiple of 8)"}}};
}

std::unique_ptr<Workload> make_dct8x8(const WorkloadArgs& args) {
  WorkloadArgReader r("dct8x8", params(), args);
  const std::uint32_t w = r.get_u32("width", {kB, 8192, kB, "8x8 blocks"});
  const std::uint32_t h = r.get_u32("height", {kB, 8192, kB, "8x8 blocks"});
  const std::uint64_t bytes = std::uint64_t{w} * h * 4;
  DeviceAllocator alloc;
  const Addr img = alloc.alloc(bytes), coef = alloc.alloc(bytes), out = alloc.alloc(bytes);
  std::vector<std::unique_ptr<Kernel>> ks;
  const char* names[2] = {"CUDAkernel1DCT", "CUDAkernel1IDCT"};
  const Addr srcs[2] = {img, coef}, dsts[2] = {coef, out};
  for (int k = 0; k < 2; ++k) {
    DctParams p{w, srcs[k], dsts[k]};
    // Each pixel is read once by the one CTA of its 8x8 block and each result written once:
    // NO-REUSE (the reuse is inside the CTA, in shared memory).
    std::vector<DataStructure> data = {
        {k == 0 ? "TexSrc (image)" : "TexSrc (coefficients)", p.src, bytes, 4, {no_reuse()}},
        {k == 0 ? "Dst (coefficients)" : "Dst (image)", p.dst, bytes, 4, {no_reuse()}}};
    KernelShape shape;
    shape.name = names[k];
    shape.grid = {w / kB, h / kB, 1};
    shape.block = {kB, kB, 1};
    shape.regs_per_thread = 14;
    shape.shared_mem_bytes = 2 * kB * kB * 4;
    ks.push_back(make_grid_kernel<DctStream>(std::move(shape), std::move(data), p));
  }
  return std::make_unique<KernelListWorkload>("dct8x8",
                                              "CUDA SDK dct8x8 (kernel 1, DCT + IDCT), " +
                                                  std::to_string(w) + "x" + std::to_string(h) +
                                                  " image",
                                              std::move(ks));
}

}  // namespace

WorkloadInfo dct8x8_workload() {
  return {"dct8x8",
          "CUDA SDK",
          "8x8 block DCT then IDCT, one block per CTA, two shared-memory matrix products",
          "512x512 pixels",
          params(),
          make_dct8x8};
}

}  // namespace locsim
