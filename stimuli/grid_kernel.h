// The generic Kernel: launch shape, data structures and the warps' stream class, which builds
// each warp's stream from its WarpContext. A benchmark is a WarpStream class plus a
// make_grid_kernel<> call.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/workload/kernel.h"
#include "stimuli/warp_context.h"

namespace locsim {

struct KernelShape {
  std::string name;  // the CUDA kernel's name
  Dim3 grid;
  Dim3 block;
  std::uint32_t regs_per_thread = 16;
  std::uint32_t shared_mem_bytes = 0;
};

// Shape and data of a grid kernel; GridKernelOf<> adds the streams.
class GridKernel : public Kernel {
 public:
  // Throws std::invalid_argument for an empty grid or block.
  GridKernel(KernelShape shape, std::vector<DataStructure> data);

  std::string name() const override { return shape_.name; }
  Dim3 grid() const override { return shape_.grid; }
  Dim3 block() const override { return shape_.block; }
  std::uint32_t regs_per_thread() const override { return shape_.regs_per_thread; }
  std::uint32_t shared_mem_bytes() const override { return shape_.shared_mem_bytes; }
  const std::vector<DataStructure>& data() const override { return data_; }

 protected:
  // Throws std::out_of_range for a warp outside the launch.
  WarpContext context(std::uint32_t cta, std::uint32_t warp) const {
    return WarpContext(shape_.grid, shape_.block, cta, warp);
  }

 private:
  KernelShape shape_;
  std::vector<DataStructure> data_;
};

// A GridKernel whose warps run `Stream`, constructed as Stream(const WarpContext&, const Params&).
// Params (sizes, data-structure bases) is kept once in the kernel and shared by its streams. The
// stream class is known here, so the simulators' warp launches (emplace_warp_stream) build it in
// place, without a heap allocation or an indirect factory call.
template <class Stream, class Params>
class GridKernelOf final : public GridKernel {
 public:
  GridKernelOf(KernelShape shape, std::vector<DataStructure> data, Params params)
      : GridKernel(std::move(shape), std::move(data)), params_(std::move(params)) {}

  std::unique_ptr<WarpStream> warp_stream(std::uint32_t cta, std::uint32_t warp) const override {
    return std::make_unique<Stream>(context(cta, warp), params_);
  }
  void emplace_warp_stream(std::uint32_t cta, std::uint32_t warp,
                           WarpStreamSlot& slot) const override {
    slot.emplace<Stream>(context(cta, warp), params_);
  }

 private:
  Params params_;
};

template <class Stream, class Params>
std::unique_ptr<Kernel> make_grid_kernel(KernelShape shape, std::vector<DataStructure> data,
                                         Params params) {
  return std::make_unique<GridKernelOf<Stream, Params>>(std::move(shape), std::move(data),
                                                        std::move(params));
}

}  // namespace locsim
