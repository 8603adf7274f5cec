// PolyBench/GPU FDTD-2D (CUDA/FDTD-2D/fdtd2d.cu): tmax time steps of a 2-D finite-difference
// time-domain update on n x n fields ex, ey, hz (NX = NY = n), three kernels per step, block
// (32, 8), grid (ceil(NY/32), ceil(NX/8)); j = x index, i = y index in all three:
//   fdtd_step1_kernel(t): if (i < NX && j < NY) {
//       if (i == 0) ey[i*NY+j] = _fict_[t];
//       else ey[i*NY+j] = ey[i*NY+j] - 0.5f*(hz[i*NY+j] - hz[(i-1)*NY+j]); }
//   fdtd_step2_kernel: if (i < NX && j < NY && j > 0)
//       ex[i*NY+j] = ex[i*NY+j] - 0.5f*(hz[i*NY+j] - hz[i*NY+(j-1)]);
//   fdtd_step3_kernel: if (i < NX-1 && j < NY-1)
//       hz[i*NY+j] = hz[i*NY+j] - 0.7f*(ex[i*NY+(j+1)] - ex[i*NY+j] + ey[(i+1)*NY+j] - ey[i*NY+j]);
// A warp is 32 consecutive j of one row i: step 1 reads the row above (shared with the warp or CTA
// above), steps 2 and 3 read one element left / right (misaligned by one, two lines per load).
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo fdtd2d_workload();

namespace {

constexpr std::uint32_t kBx = 32, kBy = 8;  // DIM_THREAD_BLOCK_X, DIM_THREAD_BLOCK_Y
// Data structures: step 1 {_fict_, ey, hz}; step 2 {ex, hz}; step 3 {ex, ey, hz}.
enum : std::uint16_t { kFict1, kEy1, kHz1 };
enum : std::uint16_t { kEx2, kHz2 };
enum : std::uint16_t { kEx3, kEy3, kHz3 };

struct FdtdParams {
  std::uint32_t n = 0;
  std::uint32_t t = 0;
  Addr fict = 0, ex = 0, ey = 0, hz = 0;
};

class FdtdStep1 final : public CoroutineStream {
 public:
  FdtdStep1(const WarpContext& w, const FdtdParams& p)
      : w_(w),
        p_(p),
        top_(w.lanes_where([&](unsigned l) { return in(l) && w.global_y(l) == 0; })),
        rest_(w.lanes_where([&](unsigned l) { return in(l) && w.global_y(l) > 0; })) {}

  bool next(WarpInst& inst) override {
    LOCSIM_CO_BEGIN;
    if (top_) {  // i == 0: ey[j] = _fict_[t]
      LOCSIM_CO_YIELD(
          emit_load(inst, 0x00, top_, kFict1, [this](unsigned) { return p_.fict + 4 * p_.t; }));
      LOCSIM_CO_YIELD(
          emit_store(inst, 0x08, top_, kEy1, [this](unsigned l) { return at(p_.ey, l, 0); }));
    }
    if (rest_) {
      LOCSIM_CO_YIELD(
          emit_load(inst, 0x10, rest_, kEy1, [this](unsigned l) { return at(p_.ey, l, 0); }));
      LOCSIM_CO_YIELD(
          emit_load(inst, 0x18, rest_, kHz1, [this](unsigned l) { return at(p_.hz, l, 0); }));
      LOCSIM_CO_YIELD(emit_load(inst, 0x20, rest_, kHz1, [this](unsigned l) {  // hz[(i-1)*NY+j]
        return at(p_.hz, l, 0) - 4 * std::uint64_t{p_.n};
      }));
      LOCSIM_CO_YIELD(emit_compute(inst, 0x28, rest_, 2, kAluLatency));  // FADD, FFMA
      LOCSIM_CO_YIELD(
          emit_store(inst, 0x30, rest_, kEy1, [this](unsigned l) { return at(p_.ey, l, 0); }));
    }
    LOCSIM_CO_YIELD(emit_exit(inst, 0x38, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  bool in(unsigned l) const { return w_.global_y(l) < p_.n && w_.global_x(l) < p_.n; }
  Addr at(Addr base, unsigned l, std::int64_t dj) const {  // base[i*NY + j + dj]
    return base + 4 * static_cast<std::uint64_t>(
                          static_cast<std::int64_t>(w_.global_y(l) * p_.n + w_.global_x(l)) + dj);
  }
  WarpContext w_;
  FdtdParams p_;
  std::uint32_t top_, rest_;
};

class FdtdStep2 final : public CoroutineStream {
 public:
  FdtdStep2(const WarpContext& w, const FdtdParams& p)
      : w_(w), p_(p), body_(w.lanes_where([&](unsigned l) {
          return w.global_y(l) < p.n && w.global_x(l) < p.n && w.global_x(l) > 0;
        })) {}

  bool next(WarpInst& in) override {
    LOCSIM_CO_BEGIN;
    if (body_) {
      LOCSIM_CO_YIELD(
          emit_load(in, 0x100, body_, kEx2, [this](unsigned l) { return at(p_.ex, l, 0); }));
      LOCSIM_CO_YIELD(
          emit_load(in, 0x108, body_, kHz2, [this](unsigned l) { return at(p_.hz, l, 0); }));
      LOCSIM_CO_YIELD(
          emit_load(in, 0x110, body_, kHz2, [this](unsigned l) { return at(p_.hz, l, -1); }));
      LOCSIM_CO_YIELD(emit_compute(in, 0x118, body_, 2, kAluLatency));  // FADD, FFMA
      LOCSIM_CO_YIELD(
          emit_store(in, 0x120, body_, kEx2, [this](unsigned l) { return at(p_.ex, l, 0); }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, 0x128, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  Addr at(Addr base, unsigned l, std::int64_t dj) const {
    return base + 4 * static_cast<std::uint64_t>(
                          static_cast<std::int64_t>(w_.global_y(l) * p_.n + w_.global_x(l)) + dj);
  }
  WarpContext w_;
  FdtdParams p_;
  std::uint32_t body_;
};

class FdtdStep3 final : public CoroutineStream {
 public:
  FdtdStep3(const WarpContext& w, const FdtdParams& p)
      : w_(w), p_(p), body_(w.lanes_where([&](unsigned l) {
          return w.global_y(l) + 1 < p.n && w.global_x(l) + 1 < p.n;
        })) {}

  bool next(WarpInst& in) override {
    LOCSIM_CO_BEGIN;
    if (body_) {
      LOCSIM_CO_YIELD(
          emit_load(in, 0x200, body_, kHz3, [this](unsigned l) { return at(p_.hz, l, 0); }));
      LOCSIM_CO_YIELD(
          emit_load(in, 0x208, body_, kEx3, [this](unsigned l) { return at(p_.ex, l, 1); }));
      LOCSIM_CO_YIELD(
          emit_load(in, 0x210, body_, kEx3, [this](unsigned l) { return at(p_.ex, l, 0); }));
      LOCSIM_CO_YIELD(emit_load(in, 0x218, body_, kEy3, [this](unsigned l) {  // ey[(i+1)*NY+j]
        return at(p_.ey, l, 0) + 4 * std::uint64_t{p_.n};
      }));
      LOCSIM_CO_YIELD(
          emit_load(in, 0x220, body_, kEy3, [this](unsigned l) { return at(p_.ey, l, 0); }));
      LOCSIM_CO_YIELD(emit_compute(in, 0x228, body_, 4, kAluLatency));  // 3 FADD, FFMA
      LOCSIM_CO_YIELD(
          emit_store(in, 0x230, body_, kHz3, [this](unsigned l) { return at(p_.hz, l, 0); }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, 0x238, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  Addr at(Addr base, unsigned l, std::int64_t dj) const {
    return base + 4 * static_cast<std::uint64_t>(
                          static_cast<std::int64_t>(w_.global_y(l) * p_.n + w_.global_x(l)) + dj);
  }
  WarpContext w_;
  FdtdParams p_;
  std::uint32_t body_;
};

WorkloadParamDecls params() {
  return {{"n", {"256", "grid dimension NX = NY (ex, ey, hz are n x n floats)"}},
          {"tmax", {"8", "time steps (3 kernel launches each)"}}};
}

std::unique_ptr<Workload> make_fdtd2d(const WorkloadArgs& args) {
  WorkloadArgReader r("fdtd2d", params(), args);
  FdtdParams p;
  p.n = r.get_u32("n", {2, 16384, 1, ""});
  const std::uint32_t tmax = r.get_u32("tmax", {1, 10000, 1, ""});
  const std::uint64_t bytes = std::uint64_t{p.n} * p.n * 4;
  DeviceAllocator alloc;
  p.fict = alloc.alloc(std::uint64_t{tmax} * 4);
  p.ex = alloc.alloc(bytes);
  p.ey = alloc.alloc(bytes);
  p.hz = alloc.alloc(bytes);
  const std::uint32_t gx = (p.n + kBx - 1) / kBx, gy = (p.n + kBy - 1) / kBy;
  // Not in seed 000 Table 2; our analysis: each step updates one field in place, element by
  // element (NO-REUSE), and reads a neighbour stencil of another: the row above (step 1, hz), the
  // element to the left (step 2, hz), right and below (step 3, ex and ey), i.e. the CTA's 32x8
  // D-Tile plus a one-element halo owned by the adjacent CTA (INTER-THREAD NEARBY REGULAR, 1:1).
  // _fict_[t] is one word read by the first row of CTAs (COACCESSED); expressed as one C-Tile
  // for the grid, the merging R0.6 prescribes when not every C-Tile shares it.
  auto nearby = [&]() -> std::vector<LocalityDescriptor> {
    return {inter_thread(SharingType::Nearby, AccessPattern::Regular, {kBx, kBy, 1}, {1, 1, 1},
                         {1, 1, 0}, p.n)};
  };
  const std::vector<LocalityDescriptor> none = {no_reuse()};
  std::vector<std::unique_ptr<Kernel>> ks;
  for (p.t = 0; p.t < tmax; ++p.t) {
    ks.push_back(make_grid_kernel<FdtdStep1>(
        KernelShape{"fdtd_step1_kernel", {gx, gy, 1}, {kBx, kBy, 1}, 12, 0},
        {{"_fict_",
          p.fict,
          std::uint64_t{tmax} * 4,
          4,
          {inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {1, 1, 1}, {0, 0, 0},
                        {0, 0, 0})}},
         {"ey", p.ey, bytes, 4, none},
         {"hz", p.hz, bytes, 4, nearby(), {p.n, p.n, 1}}},
        p));
    ks.push_back(make_grid_kernel<FdtdStep2>(
        KernelShape{"fdtd_step2_kernel", {gx, gy, 1}, {kBx, kBy, 1}, 12, 0},
        {{"ex", p.ex, bytes, 4, none}, {"hz", p.hz, bytes, 4, nearby(), {p.n, p.n, 1}}}, p));
    ks.push_back(make_grid_kernel<FdtdStep3>(
        KernelShape{"fdtd_step3_kernel", {gx, gy, 1}, {kBx, kBy, 1}, 14, 0},
        {{"ex", p.ex, bytes, 4, nearby()},
         {"ey", p.ey, bytes, 4, nearby()},
         {"hz", p.hz, bytes, 4, none}},
        p));
  }
  return std::make_unique<KernelListWorkload>(
      "fdtd2d",
      "PolyBench/GPU FDTD-2D, n=" + std::to_string(p.n) + ", tmax=" + std::to_string(tmax),
      std::move(ks));
}

}  // namespace

WorkloadInfo fdtd2d_workload() {
  return {"fdtd2d",
          "PolyBench/GPU",
          "2-D FDTD: three stencil kernels (ey, ex, hz updates) per time step",
          "n=256, tmax=8 (24 launches)",
          params(),
          make_fdtd2d};
}

}  // namespace locsim
