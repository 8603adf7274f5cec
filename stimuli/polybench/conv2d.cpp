// PolyBench/GPU 2DCONV (CUDA/2DCONV/2DConvolution.cu), convolution2D_kernel: a 3x3 stencil with
// constant weights over an n x n image (NI = NJ = n), block (32, 8), grid
// (ceil(NI/32), ceil(NJ/8)):
//   j = blockIdx.x*blockDim.x + threadIdx.x;  i = blockIdx.y*blockDim.y + threadIdx.y;
//   if (i < NI-1 && j < NJ-1 && i > 0 && j > 0)
//     B[i*NJ+j] = c11*A[(i-1)*NJ+(j-1)] + c21*A[(i-1)*NJ+j] + c31*A[(i-1)*NJ+(j+1)]
//               + c12*A[i*NJ+(j-1)]     + c22*A[i*NJ+j]     + c32*A[i*NJ+(j+1)]
//               + c13*A[(i+1)*NJ+(j-1)] + c23*A[(i+1)*NJ+j] + c33*A[(i+1)*NJ+(j+1)];
// A warp is 32 consecutive j of one row i: the nine loads touch three rows, each misaligned by
// one element to the left and right (two lines per load), and every element of A is read by the
// nine threads around it, i.e. by the warps of the rows above and below and by neighbouring CTAs.
#include <memory>
#include <string>

#include "model/params.h"
#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo conv2d_workload();

namespace {

constexpr std::uint32_t kBx = 32, kBy = 8;  // DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y
enum : std::uint16_t { kA, kB };

enum : std::uint32_t {
  kPcLdA = 0x00,  // + 0x08 * (3*(di+1) + (dj+1)), nine loads in source order
  kPcFma = 0x48,
  kPcStB = 0x50,
  kPcExit = 0x58
};

struct ConvParams {
  std::uint32_t n = 0;
  Addr a = 0, b = 0;
  // Order of the nine loads and the nine FMUL/FFMA instructions that consume them: hoisted (all
  // loads first, as nvcc schedules the kernel) or interleaved (each load consumed before the
  // next is issued, one load in flight per warp): a control for how much the L1's reservation
  // failures depend on loads in flight (docs/validation/mdb.md, 2DV).
  bool interleaved = false;
};

class ConvStream final : public CoroutineStream {
 public:
  ConvStream(const WarpContext& w, const ConvParams& p)
      : w_(w), p_(p), body_(w.lanes_where([&](unsigned l) {
          const std::uint64_t i = w.global_y(l), j = w.global_x(l);
          return i + 1 < p.n && j + 1 < p.n && i > 0 && j > 0;
        })) {}

  bool next(WarpInst& in) override {
    LOCSIM_CO_BEGIN;
    if (body_ && p_.interleaved) {
      for (t_ = 0; t_ < 9; ++t_) {
        LOCSIM_CO_YIELD(emit_load(in, kPcLdA + 0x08 * t_, body_, kA, [this](unsigned l) {
          const std::uint64_t i = w_.global_y(l) + t_ / 3 - 1, j = w_.global_x(l) + t_ % 3 - 1;
          return p_.a + 4 * (i * p_.n + j);
        }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcFma, body_, 1, t_ < 8 ? 1 : kAluLatency));
      }
      LOCSIM_CO_YIELD(emit_store(in, kPcStB, body_, kB, [this](unsigned l) {
        return p_.b + 4 * (w_.global_y(l) * p_.n + w_.global_x(l));
      }));
    } else if (body_) {
      // Source order: rows i-1, i, i+1, each from j-1 to j+1: tap t = 3*(di+1) + (dj+1).
      for (t_ = 0; t_ < 9; ++t_) {
        LOCSIM_CO_YIELD(emit_load(in, kPcLdA + 0x08 * t_, body_, kA, [this](unsigned l) {
          const std::uint64_t i = w_.global_y(l) + t_ / 3 - 1, j = w_.global_x(l) + t_ % 3 - 1;
          return p_.a + 4 * (i * p_.n + j);
        }));
      }
      LOCSIM_CO_YIELD(emit_compute(in, kPcFma, body_, 9, kAluLatency));  // FMUL + 8 FFMA
      LOCSIM_CO_YIELD(emit_store(in, kPcStB, body_, kB, [this](unsigned l) {
        return p_.b + 4 * (w_.global_y(l) * p_.n + w_.global_x(l));
      }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  WarpContext w_;
  ConvParams p_;
  std::uint32_t body_;
  std::uint32_t t_ = 0;  // stencil tap (unrolled: each has its own pc)
};

WorkloadParamDecls params() {
  return {{"n", {"1024", "image dimension NI = NJ (A and B are n x n floats)"}},
          {"loads",
           {"hoisted",
            "hoisted (the nine loads, then their nine FMUL/FFMA consumers) or interleaved (each "
            "load consumed before the next)"}}};
}

std::unique_ptr<Workload> make_conv2d(const WorkloadArgs& args) {
  WorkloadArgReader r("conv2d", params(), args);
  ConvParams p;
  p.n = r.get_u32("n", {3, 16384, 1, ""});
  const std::string& order = r.text("loads");
  if (order != "hoisted" && order != "interleaved")
    throw ConfigError("workload 'conv2d': parameter 'loads': bad value '" + order +
                      "' (must be hoisted or interleaved)");
  p.interleaved = order == "interleaved";
  const std::uint64_t bytes = std::uint64_t{p.n} * p.n * 4;
  DeviceAllocator alloc;
  p.a = alloc.alloc(bytes);
  p.b = alloc.alloc(bytes);
  const std::uint32_t gx = (p.n + kBx - 1) / kBx, gy = (p.n + kBy - 1) / kBy;
  // Seed 000 Table 2: INTER-THREAD (NEARBY). Each CTA reads its 32x8 tile of A plus a one-element
  // halo that belongs to the neighbouring CTAs' tiles (D-Tile 32x8 per CTA, 1:1 in x and y); B is
  // written once (NO-REUSE).
  std::vector<DataStructure> data = {{"A",
                                      p.a,
                                      bytes,
                                      4,
                                      {inter_thread(SharingType::Nearby, AccessPattern::Regular,
                                                    {kBx, kBy, 1}, {1, 1, 1}, {1, 1, 0}, p.n)},
                                      {p.n, p.n, 1}},
                                     {"B", p.b, bytes, 4, {no_reuse()}}};
  KernelShape shape;
  shape.name = "convolution2D_kernel";
  shape.grid = {gx, gy, 1};
  shape.block = {kBx, kBy, 1};
  shape.regs_per_thread = 16;
  std::vector<std::unique_ptr<Kernel>> ks;
  ks.push_back(make_grid_kernel<ConvStream>(std::move(shape), std::move(data), p));
  return std::make_unique<KernelListWorkload>(
      "conv2d", "PolyBench/GPU 2DCONV, " + std::to_string(p.n) + "x" + std::to_string(p.n),
      std::move(ks));
}

}  // namespace

WorkloadInfo conv2d_workload() {
  return {"conv2d",
          "PolyBench/GPU",
          "3x3 2-D convolution, one thread per output pixel",
          "n=1024 (1024x1024 floats)",
          params(),
          make_conv2d};
}

}  // namespace locsim
