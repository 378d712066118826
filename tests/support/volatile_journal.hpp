// volatile_journal.hpp - a journal in memory whose writes since its last sync are
// lost in a power cut (the worst case for the commit protocol's ordering); it
// shares the power of the paged_file it journals.
#pragma once

#include "paged_file.hpp"

#include <rdelta/journal.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace rdelta::test {

class volatile_journal final : public journal_storage {
public:
    explicit volatile_journal(power& p) : p_(p) {}
    bool exists() override { return present; }
    result<void> create() override {
        if (!p_.spend()) return power_out();
        keep_old(0, current.size());
        present = true, current.clear();
        return {};
    }
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        if (pos >= current.size()) return std::size_t{0};
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), current.size() - pos));
        std::memcpy(out.data(), current.data() + pos, n);
        return n;
    }
    result<void> write(std::uint64_t pos, std::span<const std::uint8_t> b) override {
        if (!p_.spend()) return power_out();
        keep_old(pos, b.size());
        if (pos + b.size() > current.size()) current.resize(pos + b.size());
        std::memcpy(current.data() + pos, b.data(), b.size());
        return {};
    }
    result<void> sync() override {
        if (!p_.spend()) return power_out();
        synced_size_ = current.size(), undo_.clear();
        return {};
    }
    result<void> sync_folder() override { return {}; }
    result<void> remove() override {
        if (!p_.spend()) return power_out();
        present = false, current.clear(), synced_size_ = 0, undo_.clear();
        return {};
    }
    const std::string& name() const override { return name_; }
    // The power is back: the journal holds what its last sync made durable.
    void reboot() {
        current.resize(synced_size_);
        for (auto it = undo_.rbegin(); it != undo_.rend(); ++it)
            std::copy(it->second.begin(), it->second.end(), current.begin() + static_cast<std::ptrdiff_t>(it->first));
        undo_.clear();
    }

    std::vector<std::uint8_t> current;  // what reads see
    bool present = false;

private:
    // The synced bytes [pos, pos + len) are about to change: a reboot puts them back.
    // (Kept as an undo list, not a copy per sync: a journal of 1-byte batches syncs
    // thousands of times.)
    void keep_old(std::uint64_t pos, std::uint64_t len) {
        // (Synced bytes a truncation already dropped were kept then.)
        const std::uint64_t end = std::min({pos + len, synced_size_, std::uint64_t{current.size()}});
        if (pos >= end) return;
        undo_.emplace_back(pos, std::vector<std::uint8_t>(current.begin() + static_cast<std::ptrdiff_t>(pos),
                                                          current.begin() + static_cast<std::ptrdiff_t>(end)));
    }

    power& p_;
    std::string name_ = "journal";
    std::uint64_t synced_size_ = 0;
    std::vector<std::pair<std::uint64_t, std::vector<std::uint8_t>>> undo_;
};

}  // namespace rdelta::test
