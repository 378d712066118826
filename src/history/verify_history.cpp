// verify_history.cpp - checking every point file against its own checksums.
#include "history_folder.hpp"

#include <rdelta/history.hpp>

namespace rdelta {

result<history_check> verify_history(history& h) {
    auto* folder = dynamic_cast<detail::history_folder*>(&h);
    if (!folder) return fail(errc::internal_error, "not a history opened by history::open()");
    auto all = folder->load_all();
    if (!all) return std::move(all).err();
    history_check check;
    for (auto& p : *all) {
        auto refs = detail::validate(*p.file, p.header);
        check.points.push_back(p.info);
        check.problems.push_back(refs ? std::string() : refs.err().message);
    }
    return check;
}

}  // namespace rdelta
