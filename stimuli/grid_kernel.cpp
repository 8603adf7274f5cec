#include "stimuli/grid_kernel.h"

#include <stdexcept>

namespace locsim {

GridKernel::GridKernel(KernelShape shape, std::vector<DataStructure> data,
                       StreamFactory make_stream)
    : shape_(std::move(shape)), data_(std::move(data)), make_stream_(std::move(make_stream)) {
  if (shape_.grid.count() == 0 || shape_.block.count() == 0 || !make_stream_)
    throw std::invalid_argument("kernel '" + shape_.name + "': empty grid, block or stream");
}

std::unique_ptr<WarpStream> GridKernel::warp_stream(std::uint32_t cta, std::uint32_t warp) const {
  return make_stream_(WarpContext(shape_.grid, shape_.block, cta, warp));
}

}  // namespace locsim
