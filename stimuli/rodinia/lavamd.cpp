// Rodinia lavaMD (cuda/lavaMD/kernel/kernel_gpu_cuda.cu), kernel_gpu_cuda: one CTA of 128 threads
// (NUMBER_THREADS) per box of boxes1d^3, 100 particles per box (NUMBER_PAR_PER_BOX), fp = double:
//   first_i = box[bx].offset;  rA = &rv[first_i];  fA = &fv[first_i];
//   for (wtx = tx; wtx < 100; wtx += 128) rA_shared[wtx] = rA[wtx];  sync;
//   for (k = 0; k < 1 + box[bx].nn; k++) {
//     pointer = k == 0 ? bx : box[bx].nei[k-1].number;  first_j = box[pointer].offset;
//     for (wtx = tx; wtx < 100; wtx += 128) { rB_shared[wtx] = rv[first_j+wtx];
//                                              qB_shared[wtx] = qv[first_j+wtx]; }  sync;
//     for (wtx = tx; wtx < 100; wtx += 128)
//       for (j = 0; j < 100; j++) { ...rA_shared[wtx], rB_shared[j], qB_shared[j]...;
//                                   fA[wtx].v/x/y/z += ...; }
//     sync;
//   }
// FOUR_VECTOR is {double v, x, y, z} (32 B); box_str is {int x,y,z,number; long offset; int nn;
// nei_str nei[26]} with nei_str {int x,y,z,number; long offset} (24 B): offset at 16, nn at 24,
// nei[n].number at 32 + 24n + 12, 656 B per box. Boxes and their neighbour lists are built as in
// main.c (home boxes z, y, x; neighbours l, m, n in -1..1 within bounds, self excluded).
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

WorkloadInfo lavamd_workload();

namespace {

constexpr std::uint32_t kThreads = 128;   // NUMBER_THREADS
constexpr std::uint32_t kPar = 100;       // NUMBER_PAR_PER_BOX
constexpr std::uint32_t kVec = 32;        // sizeof(FOUR_VECTOR)
constexpr std::uint32_t kBoxBytes = 656;  // sizeof(box_str)
enum : std::uint16_t { kBox, kRv, kQv, kFv };
// Shared memory: rA_shared[100], rB_shared[100] (FOUR_VECTOR), qB_shared[100] (double).
constexpr Addr kRaSh = 0, kRbSh = kPar * kVec, kQbSh = 2 * kPar * kVec;

enum : std::uint32_t {
  kPcLdOffset = 0x00,
  kPcLdRa0 = 0x08,  // rA[wtx] as two 16-byte halves
  kPcLdRa1 = 0x10,
  kPcStsRa0 = 0x18,
  kPcStsRa1 = 0x20,
  kPcBar0 = 0x28,
  kPcLdNn = 0x30,
  kPcLdNei = 0x38,
  kPcLdOffB = 0x40,
  kPcLdRb0 = 0x48,
  kPcLdRb1 = 0x50,
  kPcLdQb = 0x58,
  kPcStsRb0 = 0x60,
  kPcStsRb1 = 0x68,
  kPcStsQb = 0x70,
  kPcBar1 = 0x78,
  kPcLdsRa0 = 0x80,  // rA_shared[wtx], hoisted out of the j loop
  kPcLdsRa1 = 0x88,
  kPcLdsRb0 = 0x90,  // j loop body
  kPcLdsRb1 = 0x98,
  kPcLdsQb = 0xa0,
  kPcMath = 0xa8,
  kPcLdF0 = 0xb0,
  kPcLdF1 = 0xb8,
  kPcAcc = 0xc0,
  kPcStF0 = 0xc8,
  kPcStF1 = 0xd0,
  kPcBar2 = 0xd8,
  kPcExit = 0xe0
};

struct LavaParams {
  std::uint32_t boxes1d = 0;
  std::shared_ptr<const std::vector<std::vector<std::uint32_t>>> nei;  // [box] -> numbers
  Addr box = 0, rv = 0, qv = 0, fv = 0;
};

class LavaStream final : public CoroutineStream {
 public:
  LavaStream(const WarpContext& w, const LavaParams& p) : w_(w), p_(p), bx_(w.block_idx().x) {
    // wtx = tx < 100; one pass of the wtx loops (128 threads >= 100 particles).
    act_ = w.lanes_where([&](unsigned l) { return w.thread_idx(l).x < kPar; });
  }

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    LOCSIM_CO_YIELD(emit_load(
        in, kPcLdOffset, all, kBox, [this](unsigned) { return box(bx_) + 16; }, 8));
    if (act_) {
      LOCSIM_CO_YIELD(emit_dependent_load(
          in, kPcLdRa0, act_, kRv, [this](unsigned l) { return vec(p_.rv, bx_, l, 0); }, 16));
      LOCSIM_CO_YIELD(emit_load(
          in, kPcLdRa1, act_, kRv, [this](unsigned l) { return vec(p_.rv, bx_, l, 16); }, 16));
      LOCSIM_CO_YIELD(emit_shared_store(
          in, kPcStsRa0, act_, [this](unsigned l) { return kRaSh + kVec * tx(l); }, 16));
      LOCSIM_CO_YIELD(emit_shared_store(
          in, kPcStsRa1, act_, [this](unsigned l) { return kRaSh + kVec * tx(l) + 16; }, 16));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPcBar0, all));
    LOCSIM_CO_YIELD(emit_load(in, kPcLdNn, all, kBox, [this](unsigned) { return box(bx_) + 24; }));
    for (k_ = 0; k_ < 1 + nei().size(); ++k_) {
      pointer_ = k_ == 0 ? bx_ : nei()[k_ - 1];
      if (k_ > 0) {
        LOCSIM_CO_YIELD(emit_dependent_load(in, kPcLdNei, all, kBox, [this](unsigned) {
          return box(bx_) + 32 + 24 * (k_ - 1) + 12;
        }));
      }
      LOCSIM_CO_YIELD(emit_dependent_load(
          in, kPcLdOffB, all, kBox, [this](unsigned) { return box(pointer_) + 16; }, 8));
      if (act_) {
        LOCSIM_CO_YIELD(emit_dependent_load(
            in, kPcLdRb0, act_, kRv, [this](unsigned l) { return vec(p_.rv, pointer_, l, 0); },
            16));
        LOCSIM_CO_YIELD(emit_load(
            in, kPcLdRb1, act_, kRv, [this](unsigned l) { return vec(p_.rv, pointer_, l, 16); },
            16));
        LOCSIM_CO_YIELD(emit_load(
            in, kPcLdQb, act_, kQv,
            [this](unsigned l) { return p_.qv + 8 * (std::uint64_t{pointer_} * kPar + tx(l)); },
            8));
        LOCSIM_CO_YIELD(emit_shared_store(
            in, kPcStsRb0, act_, [this](unsigned l) { return kRbSh + kVec * tx(l); }, 16));
        LOCSIM_CO_YIELD(emit_shared_store(
            in, kPcStsRb1, act_, [this](unsigned l) { return kRbSh + kVec * tx(l) + 16; }, 16));
        LOCSIM_CO_YIELD(emit_shared_store(
            in, kPcStsQb, act_, [this](unsigned l) { return kQbSh + 8 * tx(l); }, 8));
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBar1, all));
      if (act_) {
        LOCSIM_CO_YIELD(emit_shared_load(
            in, kPcLdsRa0, act_, [this](unsigned l) { return kRaSh + kVec * tx(l); }, 16));
        LOCSIM_CO_YIELD(emit_shared_load(
            in, kPcLdsRa1, act_, [this](unsigned l) { return kRaSh + kVec * tx(l) + 16; }, 16));
        for (j_ = 0; j_ < kPar; ++j_) {
          LOCSIM_CO_YIELD(emit_shared_load(
              in, kPcLdsRb0, act_, [this](unsigned) { return kRbSh + kVec * j_; }, 16));
          LOCSIM_CO_YIELD(emit_shared_load(
              in, kPcLdsRb1, act_, [this](unsigned) { return kRbSh + kVec * j_ + 16; }, 16));
          LOCSIM_CO_YIELD(emit_shared_load(
              in, kPcLdsQb, act_, [this](unsigned) { return kQbSh + 8 * j_; }, 8));
          // r2, u2, exp(-u2) (~8 DP instructions), fs, d.xyz, f.xyz
          LOCSIM_CO_YIELD(emit_compute(in, kPcMath, act_, 20, kAluLatency));
          LOCSIM_CO_YIELD(emit_load(
              in, kPcLdF0, act_, kFv, [this](unsigned l) { return vec(p_.fv, bx_, l, 0); }, 16));
          LOCSIM_CO_YIELD(emit_load(
              in, kPcLdF1, act_, kFv, [this](unsigned l) { return vec(p_.fv, bx_, l, 16); }, 16));
          LOCSIM_CO_YIELD(emit_compute(in, kPcAcc, act_, 4, kAluLatency));  // 4 DFMA
          LOCSIM_CO_YIELD(emit_store(
              in, kPcStF0, act_, kFv, [this](unsigned l) { return vec(p_.fv, bx_, l, 0); }, 16));
          LOCSIM_CO_YIELD(emit_store(
              in, kPcStF1, act_, kFv, [this](unsigned l) { return vec(p_.fv, bx_, l, 16); }, 16));
        }
      }
      LOCSIM_CO_YIELD(emit_barrier(in, kPcBar2, all));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, all));
    LOCSIM_CO_END;
  }

 private:
  const std::vector<std::uint32_t>& nei() const { return (*p_.nei)[bx_]; }
  std::uint64_t tx(unsigned l) const { return w_.thread_idx(l).x; }
  Addr box(std::uint64_t b) const { return p_.box + kBoxBytes * b; }
  // &array[box*100 + wtx] + half (offset = number * NUMBER_PAR_PER_BOX)
  Addr vec(Addr base, std::uint64_t b, unsigned l, std::uint32_t half) const {
    return base + kVec * (b * kPar + tx(l)) + half;
  }

  WarpContext w_;
  LavaParams p_;
  std::uint32_t bx_ = 0, act_ = 0, pointer_ = 0;
  std::size_t k_ = 0;
  std::uint32_t j_ = 0;
};

WorkloadParamDecls params() {
  return {{"boxes1d", {"2", "boxes per dimension (boxes1d^3 boxes of 100 particles)"}},
          {"fv_tile",
           {"thread",
            "descriptor of fv_gpu: thread (INTRA-THREAD, Table 2) or box (a control: "
            "one box of 100 particles per CTA, tiled NO-REUSE, for NUMA placement)"}}};
}

std::unique_ptr<Workload> make_lavamd(const WorkloadArgs& args) {
  WorkloadArgReader r("lavamd", params(), args);
  const std::uint32_t b = r.get_u32("boxes1d", {1, 64, 1, ""});
  const std::uint32_t boxes = b * b * b;
  const std::string fv_tile = r.text("fv_tile");
  if (fv_tile != "thread" && fv_tile != "box")
    throw ConfigError("workload 'lavamd': parameter 'fv_tile': bad value '" + fv_tile +
                      "' (must be thread or box)");
  auto nei = std::make_shared<std::vector<std::vector<std::uint32_t>>>(boxes);
  for (std::uint32_t i = 0; i < b; ++i)        // z
    for (std::uint32_t j = 0; j < b; ++j)      // y
      for (std::uint32_t k = 0; k < b; ++k) {  // x
        auto& v = (*nei)[(i * b + j) * b + k];
        for (int l = -1; l < 2; ++l)
          for (int m = -1; m < 2; ++m)
            for (int n = -1; n < 2; ++n) {
              const long z = long(i) + l, y = long(j) + m, x = long(k) + n;
              if ((l | m | n) == 0 || z < 0 || y < 0 || x < 0 || z >= b || y >= b || x >= b)
                continue;
              v.push_back(static_cast<std::uint32_t>((z * b + y) * b + x));
            }
      }
  LavaParams p;
  p.boxes1d = b;
  p.nei = nei;
  DeviceAllocator alloc;
  const std::uint64_t space = std::uint64_t{boxes} * kPar;
  p.box = alloc.alloc(std::uint64_t{boxes} * kBoxBytes);
  p.rv = alloc.alloc(space * kVec);
  p.qv = alloc.alloc(space * 8);
  p.fv = alloc.alloc(space * kVec);
  // Seed 000 Table 2: INTRA-THREAD + INTER-THREAD (COACCESSED, REGULAR). fv[wtx] is re-read and
  // re-written by its own thread 100 times per neighbour box (INTRA-THREAD, one FOUR_VECTOR per
  // thread); a box's rv/qv tile is loaded by every CTA whose home box neighbours it (COACCESSED by
  // up to 27 CTAs, REGULAR stride 100 particles); the box table is read a few words per CTA.
  const auto box_tile = [&](std::uint32_t elem) {
    return inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {kPar * elem, 1, 1},
                        {1, 1, 1}, {1, 0, 0}, kPar);
  };
  std::vector<DataStructure> data = {
      {"box_gpu", p.box, std::uint64_t{boxes} * kBoxBytes, kBoxBytes, {no_reuse()}},
      {"rv_gpu", p.rv, space * kVec, kVec, {box_tile(1)}},
      {"qv_gpu", p.qv, space * 8, 8, {box_tile(1)}},
      // The INTRA-THREAD reading puts thread t of the grid on element t, but CTA c's 128 threads
      // own box c's 100 particles; `box` names that tile instead (docs/validation/numa.md).
      {"fv_gpu",
       p.fv,
       space * kVec,
       kVec,
       {fv_tile == "box" ? no_reuse({kPar, 1, 1}, {1, 1, 1}, {1, 0, 0})
                         : intra_thread({1, 1, 1})}}};
  KernelShape shape;
  shape.name = "kernel_gpu_cuda";
  shape.grid = {boxes, 1, 1};
  shape.block = {kThreads, 1, 1};
  shape.regs_per_thread = 40;
  shape.shared_mem_bytes = 2 * kPar * kVec + kPar * 8;
  std::vector<std::unique_ptr<Kernel>> ks;
  ks.push_back(make_grid_kernel<LavaStream>(std::move(shape), std::move(data), p));
  return std::make_unique<KernelListWorkload>(
      "lavamd", "Rodinia lavaMD, " + std::to_string(b) + "^3 boxes x 100 particles", std::move(ks));
}

}  // namespace

WorkloadInfo lavamd_workload() {
  return {"lavamd",
          "Rodinia",
          "particle forces within neighbouring boxes through shared memory (kernel_gpu_cuda)",
          "boxes1d=2 (8 boxes x 100 particles)",
          params(),
          make_lavamd};
}

}  // namespace locsim
