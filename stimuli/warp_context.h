// Where a warp sits in its kernel launch: blockIdx, and threadIdx of each of its 32 lanes, the
// inputs of every CUDA kernel's index arithmetic. Streams keep one and compute lane addresses
// from it.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>

#include "model/workload/kernel.h"

namespace locsim {

constexpr std::uint32_t kLanesPerWarp = 32;

// A 3-D index (blockIdx / threadIdx); Dim3 is the extent and defaults to 1, this defaults to 0.
struct Idx3 {
  std::uint32_t x = 0, y = 0, z = 0;
  bool operator==(const Idx3& o) const { return x == o.x && y == o.y && z == o.z; }
};

class WarpContext {
 public:
  // Throws std::out_of_range if cta or warp is outside the launch. Inline (a context is built at
  // every warp launch): a stream that reads a few of its fields keeps only those.
  WarpContext(Dim3 grid, Dim3 block, std::uint32_t cta, std::uint32_t warp)
      : grid_(grid), block_(block), cta_(cta), warp_(warp) {
    const std::uint32_t threads = block.count();
    if (cta >= grid.count() || warp * kLanesPerWarp >= threads) out_of_launch();
    block_idx_ = {cta % grid.x, (cta / grid.x) % grid.y, cta / (grid.x * grid.y)};
    const std::uint32_t t0 = warp * kLanesPerWarp;
    tid0_ = {t0 % block.x, (t0 / block.x) % block.y, t0 / (block.x * block.y)};
    const std::uint32_t live = std::min(kLanesPerWarp, threads - t0);
    live_ = live == kLanesPerWarp ? ~std::uint32_t{0} : (std::uint32_t{1} << live) - 1;
    row_ = std::min(live, block.x - tid0_.x);
    if (row_ < kLanesPerWarp) store_lanes(live);
  }
  // Copies copy only the stored lanes (the others are never read, nor written: a warp launch
  // builds a context and a 1-D one stores none).
  WarpContext(const WarpContext& o) { *this = o; }
  WarpContext& operator=(const WarpContext& o) {
    grid_ = o.grid_;
    block_ = o.block_;
    block_idx_ = o.block_idx_;
    cta_ = o.cta_;
    warp_ = o.warp_;
    live_ = o.live_;
    tid0_ = o.tid0_;
    row_ = o.row_;
    for (unsigned l = row_; l < kLanesPerWarp; ++l) tid_[l] = o.tid_[l];
    return *this;
  }

  const Dim3& grid_dim() const { return grid_; }        // gridDim
  const Dim3& block_dim() const { return block_; }      // blockDim
  const Idx3& block_idx() const { return block_idx_; }  // blockIdx
  std::uint32_t cta() const { return cta_; }            // linear CTA id, x fastest
  std::uint32_t warp() const { return warp_; }          // warp within the CTA
  // threadIdx of a lane (lanes past the end of a partial last warp read as 0). Lanes in lane 0's
  // row of x differ from it in x only and are computed on demand; only the lanes after the row's
  // end (blockDim.x not a multiple of 32) are stored, so a 1-D launch builds its context without
  // a loop over the lanes (a context is built at every warp launch).
  Idx3 thread_idx(unsigned lane) const {
    if (lane < row_) return Idx3{tid0_.x + lane, tid0_.y, tid0_.z};
    const Lane& t = tid_[lane];
    return Idx3{t.x, t.y, t.z};
  }
  // Linear thread id within the CTA (x fastest), as the hardware forms warps.
  std::uint32_t thread_in_cta(unsigned lane) const { return warp_ * kLanesPerWarp + lane; }
  // Lanes that are real threads (all 32 unless the CTA size is not a multiple of 32).
  std::uint32_t live_mask() const { return live_; }

  // blockIdx.d * blockDim.d + threadIdx.d
  std::uint64_t global_x(unsigned lane) const {
    return std::uint64_t{block_idx_.x} * block_.x + thread_idx(lane).x;
  }
  std::uint64_t global_y(unsigned lane) const {
    return std::uint64_t{block_idx_.y} * block_.y + thread_idx(lane).y;
  }
  std::uint64_t global_z(unsigned lane) const {
    return std::uint64_t{block_idx_.z} * block_.z + thread_idx(lane).z;
  }
  // Linear thread id in the grid: cta * threads_per_cta + thread_in_cta.
  std::uint64_t global_linear(unsigned lane) const {
    return std::uint64_t{cta_} * block_.count() + thread_in_cta(lane);
  }

  // The live lanes for which pred(lane) holds: the active mask of an `if (pred)` region.
  template <class Pred>
  std::uint32_t lanes_where(Pred&& pred) const {
    std::uint32_t m = 0;
    for (unsigned l = 0; l < kLanesPerWarp; ++l)
      if (((live_ >> l) & 1u) && pred(l)) m |= 1u << l;
    return m;
  }

 private:
  Dim3 grid_, block_;
  Idx3 block_idx_;
  std::uint32_t cta_ = 0, warp_ = 0, live_ = 0;
  Idx3 tid0_;              // threadIdx of lane 0
  std::uint32_t row_ = 0;  // lanes 0..row_-1 are live and share lane 0's y and z
  // threadIdx of lanes row_..31 (0 for dead lanes) only; without member initializers (unlike
  // Idx3), so that a context that stores no lane does not clear 384 bytes.
  struct Lane {
    std::uint32_t x, y, z;
  };
  std::array<Lane, kLanesPerWarp> tid_;
  // The constructor's rare parts, out of line: the range error and the lanes after the row.
  [[noreturn]] void out_of_launch() const;
  void store_lanes(std::uint32_t live);
};

}  // namespace locsim
