// A kernel that is only a launch shape and data structures with their Locality Descriptors: what
// the seed 000 algorithms (clustering, NUMA partitioning) read. Asking it for warps is a bug.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model/workload/kernel.h"

namespace locsim::test {

class DescKernel final : public Kernel {
 public:
  DescKernel(Dim3 grid, std::vector<DataStructure> data, Dim3 block = {64, 1, 1})
      : grid_(grid), block_(block), data_(std::move(data)) {}
  std::string name() const override { return "desc"; }
  Dim3 grid() const override { return grid_; }
  Dim3 block() const override { return block_; }
  const std::vector<DataStructure>& data() const override { return data_; }
  std::unique_ptr<WarpStream> warp_stream(std::uint32_t, std::uint32_t) const override {
    throw std::logic_error("DescKernel has no warp streams");
  }

 private:
  Dim3 grid_, block_;
  std::vector<DataStructure> data_;
};

}  // namespace locsim::test
