// Starting a kernel on a CTA policy in unit tests: the policies here only need the grid size, so
// the kernel is a bare launch shape whose warp streams must never be asked for.
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/cta_policy.h"

namespace locsim::test {

class ShapeKernel final : public Kernel {
 public:
  explicit ShapeKernel(std::uint32_t num_ctas, std::uint32_t threads = 64)
      : grid_{num_ctas, 1, 1}, block_{threads, 1, 1} {}
  std::string name() const override { return "shape"; }
  Dim3 grid() const override { return grid_; }
  Dim3 block() const override { return block_; }
  const std::vector<DataStructure>& data() const override { return data_; }
  std::unique_ptr<WarpStream> warp_stream(std::uint32_t, std::uint32_t) const override {
    throw std::logic_error("ShapeKernel has no warp streams");
  }

 private:
  Dim3 grid_, block_;
  std::vector<DataStructure> data_;
};

// Calls p.begin_kernel for a kernel of num_ctas CTAs. The policies under test keep nothing of the
// launch beyond the call, so the kernel may die with it.
inline void begin(CtaSchedulingPolicy& p, std::uint32_t num_ctas, std::uint32_t max_ctas_per_sm,
                  const GpuTopology& topo) {
  const ShapeKernel k(num_ctas);
  LazyCtaAccessSets sets(k);
  p.begin_kernel(KernelLaunch{k, max_ctas_per_sm, sets, topo});
}

}  // namespace locsim::test
