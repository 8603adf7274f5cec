// The platform's one physical address map: address -> memory partition (channel), L2
// sub-partition, DRAM bank/row/column and the address local to the channel. Built once per
// platform and shared by const reference with every block that routes by address (crossbar, memory
// controllers, functional replay), so they can never disagree.
//
// Baseline mapping: channels need not be a power of two (Fermi has 6): the address is split into
// chunks of interleave_bytes, chunk i goes to channel (i + hash) % channels, and the address local
// to the channel is the remaining chunk index plus the offset. Bank, row and column are bit fields
// of the local address (column | bank | row from low to high), with optional XOR of row bits into
// the bank.
//
// Range hook: an AddressRangeMapper registered for [base, end) decides the coordinate of every
// address inside it (e.g. one data structure placed in one NUMA zone by its own address bits);
// addresses outside every range use the baseline.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/tag_array.h"
#include "model/types.h"

namespace locsim {

enum class ChannelHash { None, Xor };

struct AddressMapConfig {
  std::uint32_t channels = 6;                   // memory partitions / controllers
  std::uint32_t subpartitions_per_channel = 2;  // L2 banks per memory partition
  std::uint32_t interleave_bytes = 256;         // chunk size interleaved across channels
  std::uint32_t banks = 16;                     // DRAM banks per channel (power of two)
  std::uint32_t row_bytes = 2048;               // DRAM page size per bank (power of two)
  ChannelHash channel_hash = ChannelHash::None;
  bool bank_xor = true;  // XOR low row bits into the bank index
  // Channel-local address bits that form the bank index, lowest first (log2(banks) distinct bits
  // between log2(interleave) and log2(row_bytes * banks)); the other bits below the row form the
  // column. Empty: the bits just above the row (bank = local / row_bytes mod banks). GPGPU-Sim's
  // TITAN V bit string takes {8, 12, 13, 14} (docs/validation/accelsim.md).
  std::vector<std::uint8_t> bank_bits;
  // Throws std::invalid_argument naming the offending field.
  void validate() const;
};

struct DramCoord {
  std::uint32_t channel = 0;
  std::uint32_t subpartition = 0;  // global L2 sub-partition index in [0, channels*subparts)
  std::uint32_t bank = 0;
  std::uint32_t row = 0;
  std::uint32_t column = 0;  // byte offset within the row
  Addr local = 0;            // address local to the channel
};

// The DRAM fields of a channel-local address: DramCoord's bank, row and column.
struct DramCell {
  std::uint32_t bank = 0;
  std::uint32_t row = 0;
  std::uint32_t column = 0;
};

class AddressMap;

// Decides the coordinate of the addresses of the ranges it is registered for.
class AddressRangeMapper {
 public:
  virtual ~AddressRangeMapper() = default;
  // `a` lies in a range registered with this mapper. Typically picks a channel and a
  // channel-local address and returns map.place(channel, local); the channel must be below
  // map.channels(). Distinct addresses should get distinct (channel, local) pairs.
  virtual DramCoord decode(Addr a, const AddressMap& map) const = 0;
};

class AddressMap {
 public:
  // Validates the configuration (std::invalid_argument naming the field).
  explicit AddressMap(const AddressMapConfig& c);
  AddressMap(const AddressMap&) = delete;  // one per platform: blocks hold references to it
  AddressMap& operator=(const AddressMap&) = delete;

  const AddressMapConfig& config() const { return cfg_; }
  std::uint32_t channels() const { return cfg_.channels; }
  std::uint32_t num_subpartitions() const { return cfg_.channels * cfg_.subpartitions_per_channel; }

  DramCoord decode(Addr a) const { return ranges_.empty() ? baseline(a) : decode_ranged(a); }
  // decode(a)'s channel and sub-partition; without ranges without the bank, row and column.
  std::uint32_t channel(Addr a) const {
    return ranges_.empty() ? baseline_channel(a >> il_shift_) : decode_ranged(a).channel;
  }
  std::uint32_t subpartition(Addr a) const {
    if (!ranges_.empty()) return decode_ranged(a).subpartition;
    const Addr chunk = a >> il_shift_;  // the local address's chunk index is chunk / channels
    return baseline_channel(chunk) * cfg_.subpartitions_per_channel +
           static_cast<std::uint32_t>((chunk / cfg_.channels) % cfg_.subpartitions_per_channel);
  }

  // The address local to a's L2 sub-partition: the channel-local address with the
  // sub-partition-selection chunk bits removed (dense: consecutive chunks of one sub-partition
  // are consecutive here). What an L2 bank indexes its sets with.
  Addr bank_local(Addr a) const {
    if (!ranges_.empty()) return bank_local_of(decode_ranged(a).local);
    // Without ranges the channel-local chunk index is the chunk index / channels.
    const Addr chunk = (a >> il_shift_) / cfg_.channels;
    return ((chunk / cfg_.subpartitions_per_channel) << il_shift_) |
           (a & (cfg_.interleave_bytes - 1));
  }

  // The linear / XOR mapping, ignoring registered ranges.
  DramCoord baseline(Addr a) const;
  // The channel-local address of the baseline mapping (the channel hash does not change it):
  // decode(a).local when no range holds a.
  Addr baseline_local(Addr a) const {
    return (((a >> il_shift_) / cfg_.channels) << il_shift_) | (a & (cfg_.interleave_bytes - 1));
  }
  // Bank, row and column of channel-local address `local`, as place() gives them: what a memory
  // controller, which knows its channel, needs of each request (no channel and sub-partition).
  DramCell cell(Addr local) const {
    DramCell d;
    d.row = static_cast<std::uint32_t>(local >> (row_shift_ + bank_bits_));
    if (bank_mask_) {
      gather_bank_bits(local, d);
    } else {
      d.column = static_cast<std::uint32_t>(local & (cfg_.row_bytes - 1));
      d.bank = static_cast<std::uint32_t>(local >> row_shift_) & (cfg_.banks - 1);
    }
    if (cfg_.bank_xor) d.bank ^= d.row & (cfg_.banks - 1);
    return d;
  }
  // The full coordinate of channel-local address `local` in `channel`: the L2 sub-partition
  // alternates over the channel's sub-partitions every interleave chunk; bank, row and column are
  // fields of `local`.
  DramCoord place(std::uint32_t channel, Addr local) const;

  // Registers `mapper` for [base, end). Throws std::invalid_argument for an empty range, a null
  // mapper or a range overlapping one already registered (the message names both).
  void add_range(Addr base, Addr end, std::shared_ptr<const AddressRangeMapper> mapper,
                 const std::string& name = "");
  // The mapper whose range holds `a`, nullptr outside every range.
  const AddressRangeMapper* mapper_for(Addr a) const;
  std::size_t num_ranges() const { return ranges_.size(); }
  // Changes whenever the mapping does (a range is added or removed): lets callers cache decodes.
  std::uint64_t version() const { return version_; }

 private:
  struct Range {
    Addr base, end;  // [base, end)
    const AddressRangeMapper* mapper;
    std::string name;
  };
  DramCoord decode_ranged(Addr a) const;
  Addr bank_local_of(Addr local) const;
  // The baseline mapping's channel of interleave chunk `chunk` (with the channel hash).
  std::uint32_t baseline_channel(Addr chunk) const {
    const Addr upper = chunk / cfg_.channels;
    if (cfg_.channel_hash == ChannelHash::Xor) return hashed_channel(chunk, upper);
    return static_cast<std::uint32_t>(chunk - upper * cfg_.channels);  // chunk % channels
  }
  std::uint32_t hashed_channel(Addr chunk, Addr upper) const;
  // cell() with mem.bank_bits: the bank bits gathered, the other bits below the row packed into
  // the column.
  void gather_bank_bits(Addr local, DramCell& d) const;

  AddressMapConfig cfg_;
  unsigned il_shift_;
  unsigned row_shift_;
  unsigned bank_bits_;
  Addr bank_mask_ = 0;  // mem.bank_bits as a mask of local-address bits (0: the default layout)
  // With mem.bank_bits: the runs of consecutive local-address bits below the row that go to the
  // bank, and to the column; each run's bits [from, from + width) land at bit `to`.
  struct BitRun {
    unsigned from, to;
    std::uint32_t mask;  // width ones
  };
  std::vector<BitRun> bank_runs_, column_runs_;
  std::vector<Range> ranges_;  // sorted by base, disjoint
  std::uint64_t version_ = 0;
  std::vector<std::shared_ptr<const AddressRangeMapper>> mappers_;
};

// Set indexing of an L2 sub-partition on its bank-local address (AddressMap::bank_local).
class L2BankIndex final : public SetIndexAddress {
 public:
  explicit L2BankIndex(const AddressMap& map) : map_(map) {}
  // Decoded on every call: the L2's decision looks its line up once per request, so a kept
  // last answer (which saved decodes when one access looked its line up several times) missed
  // on nearly every call.
  Addr index_address(Addr a) const override { return map_.bank_local(a); }

 private:
  const AddressMap& map_;
};

}  // namespace locsim
