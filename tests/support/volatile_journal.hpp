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
#include <vector>

namespace rdelta::test {

class volatile_journal final : public journal_storage {
public:
    explicit volatile_journal(power& p) : p_(p) {}
    bool exists() override { return present; }
    result<void> create() override {
        if (!p_.spend()) return power_out();
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
        if (pos + b.size() > current.size()) current.resize(pos + b.size());
        std::memcpy(current.data() + pos, b.data(), b.size());
        return {};
    }
    result<void> sync() override {
        if (!p_.spend()) return power_out();
        durable = current;
        return {};
    }
    result<void> sync_folder() override { return {}; }
    result<void> remove() override {
        if (!p_.spend()) return power_out();
        present = false, current.clear(), durable.clear();
        return {};
    }
    const std::string& name() const override { return name_; }
    // The power is back: the journal holds what its last sync made durable.
    void reboot() { current = durable; }

    std::vector<std::uint8_t> current, durable;
    bool present = false;

private:
    power& p_;
    std::string name_ = "journal";
};

}  // namespace rdelta::test
