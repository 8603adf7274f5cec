// CUDA SDK scalarProd (samples/0_Simple/scalarProd/scalarProd_kernel.cuh), scalarProdGPU launched
// <<<128, 256>>> on VECTOR_N vector pairs of ELEMENT_N floats, ACCUM_N = 1024:
//   for (vec = blockIdx.x; vec < vectorN; vec += gridDim.x) {
//     vectorBase = elementN*vec;  vectorEnd = vectorBase + elementN;
//     for (iAccum = tx; iAccum < ACCUM_N; iAccum += blockDim.x) {
//       sum = 0;
//       for (pos = vectorBase + iAccum; pos < vectorEnd; pos += ACCUM_N) sum += A[pos]*B[pos];
//       accumResult[iAccum] = sum;
//     }
//     for (stride = ACCUM_N/2; stride > 0; stride >>= 1) {
//       __syncthreads();
//       for (iAccum = tx; iAccum < stride; iAccum += blockDim.x)
//         accumResult[iAccum] += accumResult[stride + iAccum];
//     }
//     __syncthreads();
//     if (tx == 0) C[vec] = accumResult[0];
//   }
// A and B are streamed once: NO-REUSE (seed 000 Table 2).
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo scalarprod_workload();

namespace {

constexpr std::uint32_t kAccumN = 1024, kThreads = 256;
enum : std::uint16_t { kA, kB, kC };

enum : std::uint32_t {
  kPcVecHead = 0x00,  // vector base arithmetic
  kPcLdA = 0x08,
  kPcLdB = 0x10,
  kPcFma = 0x18,
  kPcStsAcc = 0x20,
  kPcRedBar = 0x28,
  kPcRedLd0 = 0x30,
  kPcRedLd1 = 0x38,
  kPcRedAdd = 0x40,
  kPcRedSt = 0x48,
  kPcBarEnd = 0x50,
  kPcLdsRes = 0x58,
  kPcStC = 0x60,
  kPcExit = 0x68
};

struct SpParams {
  std::uint32_t vectors = 0, elements = 0;
  Addr a = 0, b = 0, c = 0;
};

class SpStream final : public CoroutineStream {
 public:
  SpStream(const WarpContext& w, const SpParams& p) : w_(w), p_(p) {}

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    for (vec_ = w_.block_idx().x; vec_ < p_.vectors; vec_ += w_.grid_dim().x) {
      LOCSIM_CO_YIELD(emit_compute(in, kPcVecHead, all, 2, kAluLatency));
      for (acc_ = 0; acc_ < kAccumN; acc_ += kThreads) {
        for (pos_ = 0; (mask_ = pos_mask()) != 0; pos_ += kAccumN) {
          LOCSIM_CO_YIELD(
              emit_load(in, kPcLdA, mask_, kA, [this](unsigned l) { return elem(p_.a, l); }));
          LOCSIM_CO_YIELD(
              emit_load(in, kPcLdB, mask_, kB, [this](unsigned l) { return elem(p_.b, l); }));
          LOCSIM_CO_YIELD(emit_compute(in, kPcFma, mask_, 1, kAluLatency));
        }
        LOCSIM_CO_YIELD(emit_shared_store(
            in, kPcStsAcc, all, [this](unsigned l) { return Addr{4} * (tid(l) + acc_); }));
      }
      for (stride_ = kAccumN / 2; stride_ > 0; stride_ >>= 1) {
        LOCSIM_CO_YIELD(emit_barrier(in, kPcRedBar, all));
        for (acc_ = 0;
             (mask_ = w_.lanes_where([this](unsigned l) { return tid(l) + acc_ < stride_; })) != 0;
             acc_ += kThreads) {
          LOCSIM_CO_YIELD(emit_shared_load(
              in, kPcRedLd0, mask_, [this](unsigned l) { return Addr{4} * (tid(l) + acc_); }));
          LOCSIM_CO_YIELD(emit_shared_load(in, kPcRedLd1, mask_, [this](unsigned l) {
            return Addr{4} * (stride_ + tid(l) + acc_);
          }));
          LOCSIM_CO_YIELD(emit_compute(in, kPcRedAdd, mask_, 1, kAluLatency));
          LOCSIM_CO_YIELD(emit_shared_store(
              in, kPcRedSt, mask_, [this](unsigned l) { return Addr{4} * (tid(l) + acc_); }));
        }
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBarEnd, all));
      if (w_.warp() == 0) {  // threadIdx.x == 0
        LOCSIM_CO_YIELD(emit_shared_load(in, kPcLdsRes, 1u, [](unsigned) { return Addr{0}; }));
        LOCSIM_CO_YIELD(
            emit_store(in, kPcStC, 1u, kC, [this](unsigned) { return p_.c + 4 * Addr{vec_}; }));
      }
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, all));
    LOCSIM_CO_END;
  }

 private:
  std::uint32_t tid(unsigned l) const { return w_.thread_idx(l).x; }
  // pos - vectorBase = iAccum + pos_ for the current iAccum pass acc_.
  std::uint32_t pos_mask() const {
    return w_.lanes_where([this](unsigned l) { return tid(l) + acc_ + pos_ < p_.elements; });
  }
  Addr elem(Addr base, unsigned l) const {
    return base + 4 * (std::uint64_t{p_.elements} * vec_ + tid(l) + acc_ + pos_);
  }

  WarpContext w_;
  SpParams p_;
  std::uint32_t vec_ = 0, acc_ = 0, pos_ = 0, stride_ = 0, mask_ = 0;
};

WorkloadParamDecls params() {
  return {{"vectors", {"256", "vector pairs (VECTOR_N)"}},
          {"elements", {"4096", "floats per vector (ELEMENT_N)"}},
          {"ctas", {"128", "grid size (CTAs loop over the vectors with stride gridDim.x)"}}};
}

std::unique_ptr<Workload> make_scalarprod(const WorkloadArgs& args) {
  WorkloadArgReader r("scalarprod", params(), args);
  SpParams p;
  p.vectors = r.get_u32("vectors", {1, 65536, 1, ""});
  p.elements = r.get_u32("elements", {1, 1u << 24, 1, ""});
  const std::uint32_t ctas = r.get_u32("ctas", {1, 65535, 1, ""});
  const std::uint64_t bytes = std::uint64_t{p.vectors} * p.elements * 4;
  DeviceAllocator alloc;
  p.a = alloc.alloc(bytes);
  p.b = alloc.alloc(bytes);
  p.c = alloc.alloc(std::uint64_t{p.vectors} * 4);
  // Every element of A and B is read once; C written once: NO-REUSE (seed 000 Table 2).
  std::vector<DataStructure> data = {{"d_A", p.a, bytes, 4, {no_reuse()}},
                                     {"d_B", p.b, bytes, 4, {no_reuse()}},
                                     {"d_C", p.c, std::uint64_t{p.vectors} * 4, 4, {no_reuse()}}};
  KernelShape shape;
  shape.name = "scalarProdGPU";
  shape.grid = {ctas, 1, 1};
  shape.block = {kThreads, 1, 1};
  shape.regs_per_thread = 12;
  shape.shared_mem_bytes = kAccumN * 4;
  std::vector<std::unique_ptr<Kernel>> ks;
  ks.push_back(make_grid_kernel<SpStream>(std::move(shape), std::move(data), p));
  return std::make_unique<KernelListWorkload>("scalarprod",
                                              "CUDA SDK scalarProd, " + std::to_string(p.vectors) +
                                                  " vector pairs x " + std::to_string(p.elements) +
                                                  " floats, " + std::to_string(ctas) + " CTAs",
                                              std::move(ks));
}

}  // namespace

WorkloadInfo scalarprod_workload() {
  return {"scalarprod",
          "CUDA SDK",
          "dot products of vector pairs, one CTA per pair, shared-memory tree reduction",
          "256 pairs x 4096 floats, 128 CTAs",
          params(),
          make_scalarprod};
}

}  // namespace locsim
