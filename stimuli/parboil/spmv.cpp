// Parboil spmv, modelled with the CSR "scalar" kernel (one thread per row; Bell & Garland) instead
// of Parboil's JDS layout (spmv_jds), which needs a row permutation and padded diagonals:
//   row = blockIdx.x*blockDim.x + threadIdx.x;
//   if (row < num_rows) {
//     dot = 0;  start = ptr[row];  end = ptr[row+1];
//     for (jj = start; jj < end; jj++) dot += data[jj] * x[indices[jj]];
//     y[row] = dot;
//   }
// The matrix is a deterministic random sparse matrix (fixed seed): row lengths uniform in
// [1, 2*nnz_per_row-1] and uniformly random column indices, built on the host at workload
// construction; the stream emits the data-dependent addresses (x[indices[jj]]) and loop trip
// counts from that host copy.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "stimuli/coroutine_stream.h"
#include "stimuli/device_allocator.h"
#include "stimuli/grid_kernel.h"
#include "stimuli/kernel_list_workload.h"
#include "stimuli/warp_inst_builder.h"
#include "stimuli/workload_args.h"

namespace locsim {

WorkloadInfo spmv_workload();

namespace {

constexpr std::uint32_t kThreads = 256;
enum : std::uint16_t { kPtr, kIdx, kData, kX, kY };

enum : std::uint32_t {
  kPcLdStart = 0x00,
  kPcLdEnd = 0x08,
  kPcLdIdx = 0x10,
  kPcLdData = 0x18,
  kPcLdX = 0x20,
  kPcFma = 0x28,
  kPcStY = 0x30,
  kPcExit = 0x38
};

struct Csr {
  std::vector<std::uint32_t> ptr, col;
};

struct SpmvParams {
  std::uint32_t rows = 0;
  std::shared_ptr<const Csr> csr;
  Addr ptr = 0, idx = 0, data = 0, x = 0, y = 0;
};

// A small fixed-seed generator (xorshift64*), so the matrix is the same on every platform.
struct Rng {
  std::uint64_t s;
  std::uint32_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return static_cast<std::uint32_t>((s * 0x2545F4914F6CDD1Dull) >> 32);
  }
};

class SpmvStream final : public CoroutineStream {
 public:
  SpmvStream(const WarpContext& w, const SpmvParams& p) : w_(w), p_(p) {
    rows_ = w.lanes_where([&](unsigned l) { return w.global_x(l) < p.rows; });
    for (unsigned l = 0; l < kLanesPerWarp; ++l)
      if ((rows_ >> l) & 1u) max_len_ = std::max(max_len_, len(l));
  }

  bool next(WarpInst& in) override {
    LOCSIM_CO_BEGIN;
    if (rows_) {
      LOCSIM_CO_YIELD(emit_load(in, kPcLdStart, rows_, kPtr,
                                [this](unsigned l) { return p_.ptr + 4 * row(l); }));
      LOCSIM_CO_YIELD(emit_load(in, kPcLdEnd, rows_, kPtr,
                                [this](unsigned l) { return p_.ptr + 4 * (row(l) + 1); }));
      for (j_ = 0; j_ < max_len_; ++j_) {
        mask_ = w_.lanes_where([this](unsigned l) { return ((rows_ >> l) & 1u) && len(l) > j_; });
        LOCSIM_CO_YIELD(emit_dependent_load(in, kPcLdIdx, mask_, kIdx,
                                            [this](unsigned l) { return p_.idx + 4 * jj(l); }));
        LOCSIM_CO_YIELD(emit_load(in, kPcLdData, mask_, kData,
                                  [this](unsigned l) { return p_.data + 4 * jj(l); }));
        LOCSIM_CO_YIELD(emit_dependent_load(in, kPcLdX, mask_, kX, [this](unsigned l) {
          return p_.x + 4 * Addr{p_.csr->col[jj(l)]};
        }));
        LOCSIM_CO_YIELD(emit_compute(in, kPcFma, mask_, 2, kAluLatency));  // FFMA, loop test
      }
      LOCSIM_CO_YIELD(
          emit_store(in, kPcStY, rows_, kY, [this](unsigned l) { return p_.y + 4 * row(l); }));
    }
    LOCSIM_CO_YIELD(emit_exit(in, kPcExit, w_.live_mask()));
    LOCSIM_CO_END;
  }

 private:
  std::uint64_t row(unsigned l) const { return w_.global_x(l); }
  std::uint32_t len(unsigned l) const { return p_.csr->ptr[row(l) + 1] - p_.csr->ptr[row(l)]; }
  std::uint64_t jj(unsigned l) const { return std::uint64_t{p_.csr->ptr[row(l)]} + j_; }

  WarpContext w_;
  SpmvParams p_;
  std::uint32_t rows_ = 0, max_len_ = 0, j_ = 0, mask_ = 0;
};

WorkloadParamDecls params() {
  return {{"rows", {"16384", "matrix rows = columns = length of x and y"}},
          {"nnz_per_row", {"8", "mean non-zeros per row (lengths uniform in [1, 2*mean-1])"}},
          {"seed", {"12345", "seed of the random matrix (fixed, so runs are reproducible)"}}};
}

std::unique_ptr<Workload> make_spmv(const WorkloadArgs& args) {
  WorkloadArgReader r("spmv", params(), args);
  SpmvParams p;
  p.rows = r.get_u32("rows", {1, 1u << 22, 1, ""});
  const std::uint32_t mean = r.get_u32("nnz_per_row", {1, 256, 1, ""});
  const std::uint32_t seed = r.get_u32("seed", {0, 0xffffffffu, 1, ""});
  auto csr = std::make_shared<Csr>();
  Rng rng{0x9E3779B97F4A7C15ull ^ seed};
  csr->ptr.resize(std::size_t{p.rows} + 1);
  csr->ptr[0] = 0;
  for (std::uint32_t i = 0; i < p.rows; ++i) {
    const std::uint32_t len = 1 + rng.next() % (2 * mean - 1);
    csr->ptr[i + 1] = csr->ptr[i] + len;
  }
  const std::uint32_t nnz = csr->ptr.back();
  csr->col.resize(nnz);
  for (auto& c : csr->col) c = rng.next() % p.rows;
  p.csr = csr;
  DeviceAllocator alloc;
  const std::uint64_t vec_bytes = std::uint64_t{p.rows} * 4;
  const std::uint64_t nnz_bytes = std::uint64_t{nnz} * 4;
  p.ptr = alloc.alloc(vec_bytes + 4);
  p.idx = alloc.alloc(nnz_bytes);
  p.data = alloc.alloc(nnz_bytes);
  p.x = alloc.alloc(vec_bytes);
  p.y = alloc.alloc(vec_bytes);
  // Seed 000 Table 2: INTRA-THREAD + INTER-THREAD (COACCESSED, IRREGULAR). A thread walks its
  // row's consecutive indices/data words, reusing each fetched line on later iterations
  // (INTRA-THREAD, D-Tile = one row); x is read at random columns by every CTA (one D-Tile, the
  // whole vector, shared by all CTAs: COACCESSED, IRREGULAR). ptr and y are touched once.
  const std::uint32_t ctas = (p.rows + kThreads - 1) / kThreads;
  std::vector<DataStructure> data = {
      {"ptr", p.ptr, vec_bytes + 4, 4, {no_reuse()}},
      {"indices", p.idx, nnz_bytes, 4, {intra_thread({2 * mean, 1, 1})}},
      {"data", p.data, nnz_bytes, 4, {intra_thread({2 * mean, 1, 1})}},
      {"x",
       p.x,
       vec_bytes,
       4,
       {inter_thread(SharingType::CoAccessed, AccessPattern::Irregular, {p.rows, 1, 1},
                     {ctas, 1, 1}, {0, 0, 0})}},
      {"y", p.y, vec_bytes, 4, {no_reuse()}}};
  KernelShape shape;
  shape.name = "spmv_csr_scalar_kernel";
  shape.grid = {ctas, 1, 1};
  shape.block = {kThreads, 1, 1};
  shape.regs_per_thread = 12;
  std::vector<std::unique_ptr<Kernel>> ks;
  ks.push_back(make_grid_kernel<SpmvStream>(std::move(shape), std::move(data), p));
  return std::make_unique<KernelListWorkload>(
      "spmv",
      "Parboil spmv (CSR scalar), " + std::to_string(p.rows) + " rows, " + std::to_string(nnz) +
          " non-zeros, seed " + std::to_string(seed),
      std::move(ks));
}

}  // namespace

WorkloadInfo spmv_workload() {
  return {"spmv",
          "Parboil",
          "sparse matrix-vector product y = A*x, CSR, one thread per row (random matrix)",
          "16384 rows, ~8 non-zeros per row",
          params(),
          make_spmv,
          // PAVER Table 2: 765 TBs; 765 CTAs of 256 rows = 195840 rows (the CSR model, not JDS).
          {{"paver", {{"rows", "195840"}}}}};
}

}  // namespace locsim
