#include "model/address_map.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace locsim {

void AddressMapConfig::validate() const {
  auto bad = [](const std::string& m) { throw std::invalid_argument(m); };
  if (!channels) bad("address_map.channels must be at least 1");
  if (!subpartitions_per_channel) bad("address_map.subpartitions_per_channel must be at least 1");
  if (!is_pow2(interleave_bytes) || interleave_bytes < 128)
    bad("address_map.interleave must be a power of two >= 128 (got " +
        std::to_string(interleave_bytes) + ")");
  if (!is_pow2(banks))
    bad("address_map.banks must be a power of two (got " + std::to_string(banks) + ")");
  if (!is_pow2(row_bytes) || row_bytes < interleave_bytes)
    bad("address_map.row_bytes must be a power of two >= the interleave (got " +
        std::to_string(row_bytes) + ")");
  if (!bank_bits.empty()) {
    const unsigned lo = log2_floor(interleave_bytes),
                   top = log2_floor(row_bytes) + log2_floor(banks);
    if (bank_bits.size() != log2_floor(banks))
      bad("address_map.bank_bits must list log2(banks) = " + std::to_string(log2_floor(banks)) +
          " bits (got " + std::to_string(bank_bits.size()) + ")");
    for (std::size_t i = 0; i < bank_bits.size(); ++i) {
      if (bank_bits[i] < lo || bank_bits[i] >= top)
        bad("address_map.bank_bits: bit " + std::to_string(bank_bits[i]) + " outside " +
            std::to_string(lo) + ".." + std::to_string(top - 1) +
            " (a channel chunk stays in one bank; the row starts at bit " + std::to_string(top) +
            ")");
      if (i && bank_bits[i] <= bank_bits[i - 1])
        bad("address_map.bank_bits must be distinct and ascending");
    }
  }
}

AddressMap::AddressMap(const AddressMapConfig& c) : cfg_(c) {
  cfg_.validate();
  il_shift_ = log2_floor(c.interleave_bytes);
  row_shift_ = log2_floor(c.row_bytes);
  bank_bits_ = log2_floor(c.banks);
  for (std::uint8_t b : c.bank_bits) bank_mask_ |= Addr{1} << b;
  if (!bank_mask_) return;
  unsigned to[2] = {0, 0};  // next bit of the column (0) and of the bank (1)
  for (unsigned b = 0; b < row_shift_ + bank_bits_;) {
    const unsigned kind = (bank_mask_ >> b) & 1u;
    unsigned e = b + 1;
    while (e < row_shift_ + bank_bits_ && ((bank_mask_ >> e) & 1u) == kind) ++e;
    const unsigned w = e - b;  // at most 32: the bank and the column are 32-bit fields
    (kind ? bank_runs_ : column_runs_)
        .push_back(BitRun{b, to[kind], w >= 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << w) - 1});
    to[kind] += w;
    b = e;
  }
}

DramCoord AddressMap::baseline(Addr a) const {
  const Addr chunk = a >> il_shift_;
  const Addr upper = chunk / cfg_.channels;
  // The channel-local address: the chunk index among the channel's chunks, and the offset.
  const Addr local = (upper << il_shift_) | (a & (cfg_.interleave_bytes - 1));
  if (cfg_.channel_hash == ChannelHash::Xor) return place(hashed_channel(chunk, upper), local);
  return place(static_cast<std::uint32_t>(chunk - upper * cfg_.channels), local);  // chunk % n
}

std::uint32_t AddressMap::hashed_channel(Addr chunk, Addr upper) const {
  // Fold the chunk index above the channel bits in 5-bit groups and add it: consecutive
  // chunks still rotate over all channels, power-of-two strides stop hitting one channel.
  Addr f = 0;
  for (Addr u = upper; u; u >>= 5) f ^= u & 31;
  return static_cast<std::uint32_t>((chunk + f) % cfg_.channels);
}

Addr AddressMap::bank_local_of(Addr local) const {
  const Addr chunk = local >> il_shift_;
  return ((chunk / cfg_.subpartitions_per_channel) << il_shift_) |
         (local & (cfg_.interleave_bytes - 1));
}

DramCoord AddressMap::place(std::uint32_t channel, Addr local) const {
  DramCoord d;
  d.channel = channel;
  d.local = local;
  const std::uint32_t subs = cfg_.subpartitions_per_channel;
  d.subpartition = channel * subs + static_cast<std::uint32_t>((local >> il_shift_) % subs);
  const DramCell c = cell(local);
  d.bank = c.bank;
  d.row = c.row;
  d.column = c.column;
  return d;
}

void AddressMap::gather_bank_bits(Addr local, DramCell& d) const {
  // A shift and a mask per run of bank or column bits (a bit at a time before: issue 10).
  std::uint32_t bank = 0, column = 0;
  for (const BitRun& r : bank_runs_)
    bank |= (static_cast<std::uint32_t>(local >> r.from) & r.mask) << r.to;
  for (const BitRun& r : column_runs_)
    column |= (static_cast<std::uint32_t>(local >> r.from) & r.mask) << r.to;
  d.bank = bank;
  d.column = column;
}

namespace {
std::string describe(Addr base, Addr end, const std::string& name) {
  std::ostringstream os;
  if (!name.empty()) os << "'" << name << "' ";
  os << "[0x" << std::hex << base << ", 0x" << end << ")";
  return os.str();
}
}  // namespace

void AddressMap::add_range(Addr base, Addr end, std::shared_ptr<const AddressRangeMapper> mapper,
                           const std::string& name) {
  if (end <= base)
    throw std::invalid_argument("address map: empty range " + describe(base, end, name));
  if (!mapper)
    throw std::invalid_argument("address map: no mapper for range " + describe(base, end, name));
  auto it = std::lower_bound(ranges_.begin(), ranges_.end(), base,
                             [](const Range& r, Addr b) { return r.base < b; });
  // Disjoint and sorted: only the neighbours can overlap.
  const Range* clash = nullptr;
  if (it != ranges_.end() && it->base < end) clash = &*it;
  if (it != ranges_.begin() && std::prev(it)->end > base) clash = &*std::prev(it);
  if (clash)
    throw std::invalid_argument("address map: range " + describe(base, end, name) +
                                " overlaps range " +
                                describe(clash->base, clash->end, clash->name));
  ranges_.insert(it, Range{base, end, mapper.get(), name});
  ++version_;
  mappers_.push_back(std::move(mapper));
}

const AddressRangeMapper* AddressMap::mapper_for(Addr a) const {
  // The last range starting at or below a.
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), a,
                             [](Addr x, const Range& r) { return x < r.base; });
  if (it == ranges_.begin()) return nullptr;
  --it;
  return a < it->end ? it->mapper : nullptr;
}

DramCoord AddressMap::decode_ranged(Addr a) const {
  const AddressRangeMapper* m = mapper_for(a);
  if (!m) return baseline(a);
  DramCoord d = m->decode(a, *this);
  if (d.channel >= cfg_.channels || d.subpartition / cfg_.subpartitions_per_channel != d.channel) {
    std::ostringstream os;
    os << "address map: range mapper put 0x" << std::hex << a << std::dec << " in channel "
       << d.channel << " / sub-partition " << d.subpartition << " (the map has " << cfg_.channels
       << " channels of " << cfg_.subpartitions_per_channel << " sub-partitions)";
    throw std::logic_error(os.str());
  }
  return d;
}

}  // namespace locsim
