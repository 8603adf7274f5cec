// The workload interface the simulators consume: a workload is a sequence of kernels; a kernel is
// a grid of CTAs whose warps each yield a lazy stream of warp instructions. Implementations (the
// built-in workloads, Accel-Sim traces) live in stimuli/. No SystemC here.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
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
  std::uint16_t count = 1;    // Compute: instructions in this block (>= 1)
  std::uint16_t latency = 0;  // Compute: dependency latency after the block, in core cycles
  std::uint8_t size = 4;      // memory: bytes per lane (1, 2, 4, 8, 16)
  // Memory: every lane is active and addr[lane] == addr[0] + lane * size, as its producer knows
  // (the SM then coalesces without checking the lanes). False says nothing. Whoever changes
  // addr, active_mask or size after the producer must clear it. The producer of a linear Load,
  // Store or Atomic may write addr[0] alone (the SM's coalescer reads no other lane of it): a
  // consumer that reads its lanes calls fill_lanes() first or reads them through lane().
  bool linear = false;
  std::uint16_t data_structure = 0;  // index into Kernel::data(); 0xffff = unknown
  // Memory instructions: per-lane byte addresses (0 for inactive lanes; of a linear one, see
  // above). Unspecified for every other operation (a producer may leave what an earlier
  // instruction put there): read it only for Load, Store, Atomic, SharedLoad and SharedStore.
  std::array<Addr, 32> addr{};
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
  // Lane l's address of a memory instruction, whether or not a linear one's lanes are written.
  Addr lane(unsigned l) const { return linear ? addr[0] + Addr{l} * size : addr[l]; }
  // Writes the lanes of a linear instruction whose producer wrote addr[0] alone (a no-op
  // otherwise), so that addr can be read as an array.
  void fill_lanes() {
    if (!linear) return;
    for (unsigned l = 1; l < 32; ++l) addr[l] = addr[0] + Addr{l} * size;
  }
};

// A warp's instruction stream, generated on demand. next() fills `inst` and returns true until the
// stream has produced its Exit; after that it returns false.
class WarpStream {
 public:
  virtual ~WarpStream() = default;
  virtual bool next(WarpInst& inst) = 0;
};

// Storage for one warp's stream that outlives the stream: a simulator keeps one per warp slot
// and builds each new warp's stream in it, so a kernel that constructs streams in place
// (GridKernel) launches a warp without a heap allocation. Movable, not copyable.
class WarpStreamSlot {
 public:
  WarpStreamSlot() = default;
  WarpStreamSlot(const WarpStreamSlot&) = delete;
  WarpStreamSlot& operator=(const WarpStreamSlot&) = delete;
  WarpStreamSlot(WarpStreamSlot&& o) noexcept { swap(o); }
  WarpStreamSlot& operator=(WarpStreamSlot&& o) noexcept {
    reset();
    swap(o);
    return *this;
  }
  ~WarpStreamSlot() { reset(); }

  WarpStream* get() const { return stream_; }
  WarpStream* operator->() const { return stream_; }
  explicit operator bool() const { return stream_ != nullptr; }

  // Ends the stream; the storage stays for the next one.
  void reset() {
    if (!stream_) return;
    if (heap_)
      delete stream_;
    else
      stream_->~WarpStream();
    stream_ = nullptr;
  }
  // A stream built elsewhere (Kernel::warp_stream).
  void adopt(std::unique_ptr<WarpStream> s) {
    reset();
    heap_ = true;
    stream_ = s.release();
  }
  // Builds S(args...) in the slot's storage, growing it if S does not fit.
  template <class S, class... Args>
  S& emplace(Args&&... args) {
    static_assert(std::is_base_of<WarpStream, S>::value, "not a WarpStream");
    static_assert(alignof(S) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "over-aligned stream");
    reset();
    if (cap_ < sizeof(S)) {
      buf_.reset(::operator new(sizeof(S)));
      cap_ = sizeof(S);
    }
    S* s = ::new (buf_.get()) S(std::forward<Args>(args)...);
    heap_ = false;
    stream_ = s;
    return *s;
  }

 private:
  struct Release {
    void operator()(void* p) const { ::operator delete(p); }
  };
  void swap(WarpStreamSlot& o) noexcept {
    std::swap(buf_, o.buf_);
    std::swap(cap_, o.cap_);
    std::swap(stream_, o.stream_);
    std::swap(heap_, o.heap_);
  }

  std::unique_ptr<void, Release> buf_;
  std::size_t cap_ = 0;
  WarpStream* stream_ = nullptr;
  bool heap_ = false;  // stream_ was adopted (delete it) rather than built in buf_
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
  // The same stream, built in `slot` (replacing the one it held). The default adopts
  // warp_stream(); kernels that can construct in place override it.
  virtual void emplace_warp_stream(std::uint32_t cta, std::uint32_t warp,
                                   WarpStreamSlot& slot) const {
    slot.adopt(warp_stream(cta, warp));
  }

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
