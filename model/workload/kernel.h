// The workload interface the simulators consume: a workload is a sequence of kernels; a kernel is
// a grid of CTAs whose warps each yield a lazy stream of warp instructions. Implementations (the
// built-in workloads, Accel-Sim traces) live in stimuli/. No SystemC here.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/types.h"
#include "model/workload/locality_descriptor.h"

namespace locsim {

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  std::uint32_t count() const { return x * y * z; }
};

enum class WarpOp : std::uint8_t {
  Compute,     // `count` independent ALU instructions, then the warp waits `latency` cycles
  Load,        // global load: addr[lane] for active lanes, `size` bytes per lane
  Store,       // global store
  Atomic,      // global atomic add of 1 on the 32-bit word at addr[lane] (performed at L2)
  SharedLoad,  // shared-memory access (bank conflicts from addr[lane] offsets)
  SharedStore,
  Barrier,  // __syncthreads()
  Exit
};

const char* to_string(WarpOp op);

struct WarpInst {
  WarpOp op = WarpOp::Exit;
  std::uint32_t pc = 0;
  std::uint32_t active_mask = 0xffffffffu;
  std::uint16_t count = 1;           // Compute: instructions in this block (>= 1)
  std::uint16_t latency = 0;         // Compute: dependency latency after the block, in core cycles
  std::uint8_t size = 4;             // memory: bytes per lane (1, 2, 4, 8, 16)
  std::uint16_t data_structure = 0;  // index into Kernel::data(); 0xffff = unknown
  std::array<Addr, 32> addr{};       // memory: per-lane byte addresses
  // Register dependencies for the SM's scoreboard (model/scoreboard.h): registers R0..R254 the
  // instruction writes and reads (255 = RZ, never pending); a load's destinations are pending
  // until it returns. wait_all_loads: the instruction waits until none of the warp's loads is
  // outstanding (it reads values it does not name). A default WarpInst names no registers and
  // waits, so a stream that says nothing keeps the conservative order.
  std::uint8_t n_dst = 0, n_src = 0;
  std::array<std::uint8_t, 4> dst{}, src{};
  bool wait_all_loads = true;

  // Warp instructions this entry stands for (a Compute block counts `count`).
  std::uint32_t warp_insts() const { return op == WarpOp::Compute ? count : 1u; }
};

// A warp's instruction stream, generated on demand. next() fills `inst` and returns true until the
// stream has produced its Exit; after that it returns false.
class WarpStream {
 public:
  virtual ~WarpStream() = default;
  virtual bool next(WarpInst& inst) = 0;
};

struct DataStructure {
  std::string name;
  Addr base = 0;
  std::uint64_t bytes = 0;
  std::uint32_t elem_bytes = 4;
  // Seed 000: zero or more Locality Descriptors (several when it has several locality types).
  std::vector<LocalityDescriptor> locality;
  // Seed 000 I-1: the structure as a row-major array of elements (X fastest), which places
  // 2-D D-Tiles; {0,0,0} = rows as wide as the first descriptor's D-Tile (locality_tiles.h).
  LDim3 shape{0, 0, 0};
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual std::string name() const = 0;
  virtual Dim3 grid() const = 0;
  virtual Dim3 block() const = 0;
  virtual std::uint32_t regs_per_thread() const { return 16; }
  virtual std::uint32_t shared_mem_bytes() const { return 0; }
  virtual const std::vector<DataStructure>& data() const = 0;
  // Stream of warp `warp` (0-based within the CTA) of CTA `cta` (linear id, x fastest).
  virtual std::unique_ptr<WarpStream> warp_stream(std::uint32_t cta, std::uint32_t warp) const = 0;

  std::uint32_t num_ctas() const { return grid().count(); }
  std::uint32_t threads_per_cta() const { return block().count(); }
  std::uint32_t warps_per_cta() const { return (threads_per_cta() + 31) / 32; }
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  // Kernels in launch order (each runs to completion before the next starts).
  virtual const std::vector<std::unique_ptr<Kernel>>& kernels() const = 0;
};

}  // namespace locsim
