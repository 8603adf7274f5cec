// Rodinia lud (cuda/lud/lud_kernel.cu): blocked in-place LU decomposition of a dim x dim matrix in
// 16x16 blocks (BLOCK_SIZE). Per block step offset = 0, 16, ..., dim-32 the host launches
//   lud_diagonal<<<1, 16>>>             : factor the diagonal block in shared memory
//   lud_perimeter<<<nb-1, 32>>>         : threads 0-15 solve a block of the block row to the right,
//                                         threads 16-31 one of the block column below
//   lud_internal<<<(nb-1, nb-1), (16,16)>>> : Schur update of the trailing submatrix
// (nb = (dim-offset)/16), then one last lud_diagonal at offset = dim-16.
// lud_diagonal: for i<16: shadow[i][tx] = m[(offset+i)*dim + offset + tx];  __syncthreads();
//   for i<15 { if (tx > i) { for j<i: shadow[tx][i] -= shadow[tx][j]*shadow[j][i];
//                            shadow[tx][i] /= shadow[i][i]; }  __syncthreads();
//              if (tx > i) for j<=i: shadow[i+1][tx] -= shadow[i+1][j]*shadow[j][tx];
//              __syncthreads(); }
//   for 1<=i<16: m[(offset+i)*dim + offset + tx] = shadow[i][tx];
// lud_perimeter (idx = tx or tx-16, c = (bx+1)*16):
//   tx<16 : dia rows 0-7 = m[(offset+i)*dim + offset + idx]; peri_row[i][idx] = m[(offset+i)*dim
//           + offset + c + idx]
//   tx>=16: dia rows 8-15; peri_col[i][idx] = m[(offset+c+i)*dim + offset + idx]
//   __syncthreads(); forward substitution on peri_row (tx<16) / peri_col (tx>=16);
//   __syncthreads(); write back peri_row rows 1-15 and peri_col rows 0-15.
// lud_internal (grow = offset+(by+1)*16, gcol = offset+(bx+1)*16):
//   peri_row[ty][tx] = m[(offset+ty)*dim + gcol + tx];  peri_col[ty][tx] = m[(grow+ty)*dim +
//   offset + tx];  __syncthreads();  for i<16: sum += peri_col[ty][i]*peri_row[i][tx];
//   m[(grow+ty)*dim + gcol + tx] -= sum;
#include <memory>
#include <string>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo lud_workload();

namespace {

constexpr std::uint32_t kB = 16;  // BLOCK_SIZE
constexpr Addr kTile = kB * kB * 4;
enum : std::uint16_t { kM };

struct LudParams {
  std::uint64_t dim = 0, offset = 0;
  Addr m = 0;
};

Addr sh(Addr array, std::uint64_t row, std::uint64_t col) {
  return array + 4 * (row * kB + col);
}

// ---------------------------------------------------------------------------- lud_diagonal
enum : std::uint32_t {
  kDLd = 0x00,
  kDSts = 0x08,
  kDBar0 = 0x10,
  kDLdsAcc = 0x18,
  kDLdsA = 0x20,
  kDLdsB = 0x28,
  kDFma = 0x30,
  kDLdsPiv = 0x38,
  kDDiv = 0x40,
  kDStsCol = 0x48,
  kDBar1 = 0x50,
  kDLdsAcc2 = 0x58,
  kDLdsA2 = 0x60,
  kDLdsB2 = 0x68,
  kDFma2 = 0x70,
  kDStsRow = 0x78,
  kDBar2 = 0x80,
  kDLdsOut = 0x88,
  kDSt = 0x90,
  kDExit = 0x98
};

class DiagonalStream final : public CoroutineStream {
 public:
  DiagonalStream(const WarpContext& w, const LudParams& p) : w_(w), p_(p) {}

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();  // 16 threads
    LOCSIM_CO_BEGIN;
    for (i_ = 0; i_ < kB; ++i_) {
      LOCSIM_CO_YIELD(
          emit_load(in, kDLd, all, kM, [this](unsigned l) { return m(p_.offset + i_, l); }));
      LOCSIM_CO_YIELD(
          emit_shared_store(in, kDSts, all, [this](unsigned l) { return sh(0, i_, l); }));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kDBar0, all));
    for (i_ = 0; i_ < kB - 1; ++i_) {
      gt_ = w_.lanes_where([this](unsigned l) { return w_.thread_idx(l).x > i_; });
      LOCSIM_CO_YIELD(
          emit_shared_load(in, kDLdsAcc, gt_, [this](unsigned l) { return sh(0, l, i_); }));
      for (j_ = 0; j_ < i_; ++j_) {
        LOCSIM_CO_YIELD(
            emit_shared_load(in, kDLdsA, gt_, [this](unsigned l) { return sh(0, l, j_); }));
        LOCSIM_CO_YIELD(
            emit_shared_load(in, kDLdsB, gt_, [this](unsigned) { return sh(0, j_, i_); }));
        LOCSIM_CO_YIELD(emit_compute(in, kDFma, gt_, 1, kAluLatency));
      }
      LOCSIM_CO_YIELD(
          emit_shared_load(in, kDLdsPiv, gt_, [this](unsigned) { return sh(0, i_, i_); }));
      LOCSIM_CO_YIELD(emit_compute(in, kDDiv, gt_, 8, kAluLatency));  // FP division sequence
      LOCSIM_CO_YIELD(
          emit_shared_store(in, kDStsCol, gt_, [this](unsigned l) { return sh(0, l, i_); }));
      LOCSIM_CO_YIELD(emit_barrier(in, kDBar1, all));
      LOCSIM_CO_YIELD(
          emit_shared_load(in, kDLdsAcc2, gt_, [this](unsigned l) { return sh(0, i_ + 1, l); }));
      for (j_ = 0; j_ <= i_; ++j_) {
        LOCSIM_CO_YIELD(
            emit_shared_load(in, kDLdsA2, gt_, [this](unsigned) { return sh(0, i_ + 1, j_); }));
        LOCSIM_CO_YIELD(
            emit_shared_load(in, kDLdsB2, gt_, [this](unsigned l) { return sh(0, j_, l); }));
        LOCSIM_CO_YIELD(emit_compute(in, kDFma2, gt_, 1, kAluLatency));
      }
      LOCSIM_CO_YIELD(
          emit_shared_store(in, kDStsRow, gt_, [this](unsigned l) { return sh(0, i_ + 1, l); }));
      LOCSIM_CO_YIELD(emit_barrier(in, kDBar2, all));
    }
    for (i_ = 1; i_ < kB; ++i_) {
      LOCSIM_CO_YIELD(
          emit_shared_load(in, kDLdsOut, all, [this](unsigned l) { return sh(0, i_, l); }));
      LOCSIM_CO_YIELD(
          emit_store(in, kDSt, all, kM, [this](unsigned l) { return m(p_.offset + i_, l); }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kDExit, all));
    LOCSIM_CO_END;
  }

 private:
  Addr m(std::uint64_t row, unsigned l) const {  // m[row*dim + offset + tx]
    return p_.m + 4 * (row * p_.dim + p_.offset + w_.thread_idx(l).x);
  }

  WarpContext w_;
  LudParams p_;
  std::uint32_t i_ = 0, j_ = 0, gt_ = 0;
};

// ---------------------------------------------------------------------------- lud_perimeter
constexpr Addr kDia = 0, kPeriRow = kTile, kPeriCol = 2 * kTile;
constexpr std::uint32_t kRowLanes = 0x0000ffffu, kColLanes = 0xffff0000u;
enum : std::uint32_t {
  kPLdDiaR = 0x000,
  kPStsDiaR = 0x008,
  kPLdRow = 0x010,
  kPStsRow = 0x018,
  kPLdDiaC = 0x020,
  kPStsDiaC = 0x028,
  kPLdCol = 0x030,
  kPStsCol = 0x038,
  kPBar0 = 0x040,
  kPRLdsAcc = 0x048,
  kPRLdsA = 0x050,
  kPRLdsB = 0x058,
  kPRFma = 0x060,
  kPRSts = 0x068,
  kPCLdsAcc = 0x070,
  kPCLdsA = 0x078,
  kPCLdsB = 0x080,
  kPCFma = 0x088,
  kPCLdsPiv = 0x090,
  kPCDiv = 0x098,
  kPCSts = 0x0a0,
  kPBar1 = 0x0a8,
  kPRLdsOut = 0x0b0,
  kPRSt = 0x0b8,
  kPCLdsOut = 0x0c0,
  kPCSt = 0x0c8,
  kPExit = 0x0d0
};

class PerimeterStream final : public CoroutineStream {
 public:
  PerimeterStream(const WarpContext& w, const LudParams& p)
      : w_(w), p_(p), c_(std::uint64_t{w.block_idx().x + 1} * kB) {}

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    // if (threadIdx.x < 16): diagonal rows 0-7 and the peri_row block
    for (i_ = 0; i_ < kB / 2; ++i_) {
      LOCSIM_CO_YIELD(emit_load(in, kPLdDiaR, kRowLanes, kM,
                                [this](unsigned l) { return m(p_.offset + i_, idx(l)); }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPStsDiaR, kRowLanes,
                                        [this](unsigned l) { return sh(kDia, i_, idx(l)); }));
    }
    for (i_ = 0; i_ < kB; ++i_) {
      LOCSIM_CO_YIELD(emit_load(in, kPLdRow, kRowLanes, kM,
                                [this](unsigned l) { return m(p_.offset + i_, c_ + idx(l)); }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPStsRow, kRowLanes,
                                        [this](unsigned l) { return sh(kPeriRow, i_, idx(l)); }));
    }
    // else: diagonal rows 8-15 and the peri_col block
    for (i_ = kB / 2; i_ < kB; ++i_) {
      LOCSIM_CO_YIELD(emit_load(in, kPLdDiaC, kColLanes, kM,
                                [this](unsigned l) { return m(p_.offset + i_, idx(l)); }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPStsDiaC, kColLanes,
                                        [this](unsigned l) { return sh(kDia, i_, idx(l)); }));
    }
    for (i_ = 0; i_ < kB; ++i_) {
      LOCSIM_CO_YIELD(emit_load(in, kPLdCol, kColLanes, kM,
                                [this](unsigned l) { return m(p_.offset + c_ + i_, idx(l)); }));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPStsCol, kColLanes,
                                        [this](unsigned l) { return sh(kPeriCol, i_, idx(l)); }));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPBar0, all));
    // peri-row: peri_row[i][idx] -= dia[i][j] * peri_row[j][idx]
    for (i_ = 1; i_ < kB; ++i_) {
      LOCSIM_CO_YIELD(emit_shared_load(in, kPRLdsAcc, kRowLanes,
                                       [this](unsigned l) { return sh(kPeriRow, i_, idx(l)); }));
      for (j_ = 0; j_ < i_; ++j_) {
        LOCSIM_CO_YIELD(emit_shared_load(in, kPRLdsA, kRowLanes,
                                         [this](unsigned) { return sh(kDia, i_, j_); }));
        LOCSIM_CO_YIELD(emit_shared_load(in, kPRLdsB, kRowLanes,
                                         [this](unsigned l) { return sh(kPeriRow, j_, idx(l)); }));
        LOCSIM_CO_YIELD(emit_compute(in, kPRFma, kRowLanes, 1, kAluLatency));
      }
      LOCSIM_CO_YIELD(emit_shared_store(in, kPRSts, kRowLanes,
                                        [this](unsigned l) { return sh(kPeriRow, i_, idx(l)); }));
    }
    // peri-col: peri_col[idx][i] -= peri_col[idx][j] * dia[j][i];  peri_col[idx][i] /= dia[i][i]
    for (i_ = 0; i_ < kB; ++i_) {
      LOCSIM_CO_YIELD(emit_shared_load(in, kPCLdsAcc, kColLanes,
                                       [this](unsigned l) { return sh(kPeriCol, idx(l), i_); }));
      for (j_ = 0; j_ < i_; ++j_) {
        LOCSIM_CO_YIELD(emit_shared_load(in, kPCLdsA, kColLanes,
                                         [this](unsigned l) { return sh(kPeriCol, idx(l), j_); }));
        LOCSIM_CO_YIELD(emit_shared_load(in, kPCLdsB, kColLanes,
                                         [this](unsigned) { return sh(kDia, j_, i_); }));
        LOCSIM_CO_YIELD(emit_compute(in, kPCFma, kColLanes, 1, kAluLatency));
      }
      LOCSIM_CO_YIELD(emit_shared_load(in, kPCLdsPiv, kColLanes,
                                       [this](unsigned) { return sh(kDia, i_, i_); }));
      LOCSIM_CO_YIELD(emit_compute(in, kPCDiv, kColLanes, 8, kAluLatency));
      LOCSIM_CO_YIELD(emit_shared_store(in, kPCSts, kColLanes,
                                        [this](unsigned l) { return sh(kPeriCol, idx(l), i_); }));
    }
    LOCSIM_CO_YIELD(emit_barrier(in, kPBar1, all));
    for (i_ = 1; i_ < kB; ++i_) {
      LOCSIM_CO_YIELD(emit_shared_load(in, kPRLdsOut, kRowLanes,
                                       [this](unsigned l) { return sh(kPeriRow, i_, idx(l)); }));
      LOCSIM_CO_YIELD(emit_store(in, kPRSt, kRowLanes, kM,
                                 [this](unsigned l) { return m(p_.offset + i_, c_ + idx(l)); }));
    }
    for (i_ = 0; i_ < kB; ++i_) {
      LOCSIM_CO_YIELD(emit_shared_load(in, kPCLdsOut, kColLanes,
                                       [this](unsigned l) { return sh(kPeriCol, i_, idx(l)); }));
      LOCSIM_CO_YIELD(emit_store(in, kPCSt, kColLanes, kM,
                                 [this](unsigned l) { return m(p_.offset + c_ + i_, idx(l)); }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPExit, all));
    LOCSIM_CO_END;
  }

 private:
  static std::uint64_t idx(unsigned l) { return l % kB; }  // tx or tx-16 (one warp per CTA)
  Addr m(std::uint64_t row, std::uint64_t col) const {     // m[row*dim + offset + col]
    return p_.m + 4 * (row * p_.dim + p_.offset + col);
  }

  WarpContext w_;
  LudParams p_;
  std::uint64_t c_;  // (blockIdx.x+1)*BLOCK_SIZE
  std::uint32_t i_ = 0, j_ = 0;
};

// ---------------------------------------------------------------------------- lud_internal
constexpr Addr kIRow = 0, kICol = kTile;
enum : std::uint32_t {
  kILdRow = 0x00,
  kILdCol = 0x08,
  kIStsRow = 0x10,
  kIStsCol = 0x18,
  kIBar = 0x20,
  kILdsCol = 0x28,
  kILdsRow = 0x30,
  kIFma = 0x38,
  kILdM = 0x40,
  kISub = 0x48,
  kIStM = 0x50,
  kIExit = 0x58
};

class InternalStream final : public CoroutineStream {
 public:
  InternalStream(const WarpContext& w, const LudParams& p)
      : w_(w),
        p_(p),
        grow_(p.offset + std::uint64_t{w.block_idx().y + 1} * kB),
        gcol_(p.offset + std::uint64_t{w.block_idx().x + 1} * kB) {}

  bool next(WarpInst& in) override {
    const std::uint32_t all = w_.live_mask();
    LOCSIM_CO_BEGIN;
    LOCSIM_CO_YIELD(emit_load(in, kILdRow, all, kM,
                              [this](unsigned l) { return m(p_.offset + ty(l), gcol_ + tx(l)); }));
    LOCSIM_CO_YIELD(emit_load(in, kILdCol, all, kM,
                              [this](unsigned l) { return m(grow_ + ty(l), p_.offset + tx(l)); }));
    LOCSIM_CO_YIELD(emit_shared_store(in, kIStsRow, all,
                                      [this](unsigned l) { return sh(kIRow, ty(l), tx(l)); }));
    LOCSIM_CO_YIELD(emit_shared_store(in, kIStsCol, all,
                                      [this](unsigned l) { return sh(kICol, ty(l), tx(l)); }));
    LOCSIM_CO_YIELD(emit_barrier(in, kIBar, all));
    for (i_ = 0; i_ < kB; ++i_) {
      LOCSIM_CO_YIELD(
          emit_shared_load(in, kILdsCol, all, [this](unsigned l) { return sh(kICol, ty(l), i_); }));
      LOCSIM_CO_YIELD(
          emit_shared_load(in, kILdsRow, all, [this](unsigned l) { return sh(kIRow, i_, tx(l)); }));
      LOCSIM_CO_YIELD(emit_compute(in, kIFma, all, 1, kAluLatency));
    }
    LOCSIM_CO_YIELD(emit_load(in, kILdM, all, kM,
                              [this](unsigned l) { return m(grow_ + ty(l), gcol_ + tx(l)); }));
    LOCSIM_CO_YIELD(emit_compute(in, kISub, all, 1, kAluLatency));
    LOCSIM_CO_YIELD(emit_store(in, kIStM, all, kM,
                               [this](unsigned l) { return m(grow_ + ty(l), gcol_ + tx(l)); }));
    LOCSIM_CO_YIELD(emit_exit(in, kIExit, all));
    LOCSIM_CO_END;
  }

 private:
  std::uint64_t tx(unsigned l) const { return w_.thread_idx(l).x; }
  std::uint64_t ty(unsigned l) const { return w_.thread_idx(l).y; }
  Addr m(std::uint64_t row, std::uint64_t col) const { return p_.m + 4 * (row * p_.dim + col); }

  WarpContext w_;
  LudParams p_;
  std::uint64_t grow_, gcol_;
  std::uint32_t i_ = 0;
};

WorkloadParamDecls params() {
  return {{"dim", {"256", "matrix dimension (dim x dim floats; a multiple of 16, at least 32)"}}};
}

std::unique_ptr<Workload> make_lud(const WorkloadArgs& args) {
  WorkloadArgReader r("lud", params(), args);
  const std::uint32_t dim = r.get_u32("dim", {2 * kB, 8192, kB, "lud works on 16x16 blocks"});
  const std::uint64_t bytes = std::uint64_t{dim} * dim * 4;
  DeviceAllocator alloc;
  const Addr m = alloc.alloc(bytes);
  std::vector<std::unique_ptr<Kernel>> ks;
  auto diagonal = [&](std::uint32_t offset) {
    // Only the diagonal block is touched, by one CTA, once each way: NO-REUSE.
    std::vector<DataStructure> data = {{"m", m, bytes, 4, {no_reuse()}}};
    KernelShape s;
    s.name = "lud_diagonal";
    s.grid = {1, 1, 1};
    s.block = {kB, 1, 1};
    s.regs_per_thread = 12;
    s.shared_mem_bytes = kTile;
    ks.push_back(
        make_grid_kernel<DiagonalStream>(std::move(s), std::move(data), LudParams{dim, offset, m}));
  };
  std::uint32_t offset = 0;
  for (; offset < dim - kB; offset += kB) {
    const std::uint32_t nb = (dim - offset) / kB - 1;  // blocks right of / below the diagonal
    diagonal(offset);
    {
      // The diagonal block is read by every CTA: INTER-THREAD (COACCESSED, REGULAR).
      std::vector<DataStructure> data = {
          {"m",
           m,
           bytes,
           4,
           {inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {kB, kB, 1}, {nb, 1, 1},
                         {0, 0, 0}, dim)}}};
      KernelShape s;
      s.name = "lud_perimeter";
      s.grid = {nb, 1, 1};
      s.block = {2 * kB, 1, 1};
      s.regs_per_thread = 16;
      s.shared_mem_bytes = 3 * kTile;
      ks.push_back(make_grid_kernel<PerimeterStream>(std::move(s), std::move(data),
                                                     LudParams{dim, offset, m}));
    }
    {
      // The perimeter row block above a CTA is shared by its whole block column, the perimeter
      // column block left of it by its whole block row (like matmul's A/B bands):
      // INTER-THREAD (COACCESSED, REGULAR).
      std::vector<DataStructure> data = {
          {"m",
           m,
           bytes,
           4,
           {inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {kB, kB, 1}, {1, nb, 1},
                         {1, 0, 0}, dim),
            inter_thread(SharingType::CoAccessed, AccessPattern::Regular, {kB, kB, 1}, {nb, 1, 1},
                         {0, 1, 0}, dim)}}};
      KernelShape s;
      s.name = "lud_internal";
      s.grid = {nb, nb, 1};
      s.block = {kB, kB, 1};
      s.regs_per_thread = 16;
      s.shared_mem_bytes = 2 * kTile;
      ks.push_back(make_grid_kernel<InternalStream>(std::move(s), std::move(data),
                                                    LudParams{dim, offset, m}));
    }
  }
  diagonal(offset);
  return std::make_unique<KernelListWorkload>(
      "lud", "Rodinia lud, " + std::to_string(dim) + "x" + std::to_string(dim) + " floats",
      std::move(ks));
}

}  // namespace

WorkloadInfo lud_workload() {
  return {"lud",     "Rodinia", "blocked LU decomposition: diagonal, perimeter, internal kernels",
          "dim=256", params(),  make_lud};
}

}  // namespace locsim
