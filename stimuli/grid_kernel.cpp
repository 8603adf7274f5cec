#include "stimuli/grid_kernel.h"

#include <stdexcept>

namespace locsim {

GridKernel::GridKernel(KernelShape shape, std::vector<DataStructure> data)
    : shape_(std::move(shape)), data_(std::move(data)) {
  if (shape_.grid.count() == 0 || shape_.block.count() == 0)
    throw std::invalid_argument("kernel '" + shape_.name + "': empty grid or block");
}

}  // namespace locsim
