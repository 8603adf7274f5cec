// The generic Kernel: launch shape, data structures and a factory that builds each warp's stream
// from its WarpContext. A benchmark is a WarpStream class plus a make_grid_kernel<> call.
#pragma once
#include <cstdint>
#include <functional>
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

class GridKernel final : public Kernel {
 public:
  using StreamFactory = std::function<std::unique_ptr<WarpStream>(const WarpContext&)>;

  GridKernel(KernelShape shape, std::vector<DataStructure> data, StreamFactory make_stream);

  std::string name() const override { return shape_.name; }
  Dim3 grid() const override { return shape_.grid; }
  Dim3 block() const override { return shape_.block; }
  std::uint32_t regs_per_thread() const override { return shape_.regs_per_thread; }
  std::uint32_t shared_mem_bytes() const override { return shape_.shared_mem_bytes; }
  const std::vector<DataStructure>& data() const override { return data_; }
  // Throws std::out_of_range for a warp outside the launch.
  std::unique_ptr<WarpStream> warp_stream(std::uint32_t cta, std::uint32_t warp) const override;

 private:
  KernelShape shape_;
  std::vector<DataStructure> data_;
  StreamFactory make_stream_;
};

// A GridKernel whose warps run `Stream`, constructed as Stream(const WarpContext&, const Params&);
// Params (sizes, data-structure bases) is copied once into the kernel and shared by its streams.
template <class Stream, class Params>
std::unique_ptr<Kernel> make_grid_kernel(KernelShape shape, std::vector<DataStructure> data,
                                         Params params) {
  auto p = std::make_shared<const Params>(std::move(params));
  return std::make_unique<GridKernel>(std::move(shape), std::move(data),
                                      [p](const WarpContext& w) -> std::unique_ptr<WarpStream> {
                                        return std::make_unique<Stream>(w, *p);
                                      });
}

}  // namespace locsim
