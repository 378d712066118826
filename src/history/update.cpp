// update.cpp - the in-place update of an image file as one call: lock, finish an
// interrupted rewrite, recover, then patch with the journal, manifest and history.
#include <rdelta/history.hpp>
#include <rdelta/in_place_fd.hpp>
#include <rdelta/manifest.hpp>
#include <rdelta/update.hpp>

#include <memory>

namespace rdelta {

namespace {

struct opened_image {
    std::unique_ptr<journal_storage> journal;
    std::unique_ptr<history> kept;               // nullptr: the image keeps no history
    std::unique_ptr<manifest_storage> manifest;  // nullptr: not kept (update_options::manifest)
};

result<opened_image> open_and_recover(in_place_fd& image, const update_options& options, update_report& report) {
    report.image = image.name();
    if (auto locked = image.lock(); !locked) return std::move(locked).err();
    auto staging = finish_interrupted_rewrite(image);
    if (!staging) return std::move(staging).err();
    if (!staging->empty() && options.on_rewrite_finished) options.on_rewrite_finished(*staging);
    auto journal = open_journal_file(image);
    if (!journal) return std::move(journal).err();
    report.journal = (*journal)->name();
    auto kept = history::open(image, options.history_dir, options.keep_history);
    if (!kept) return std::move(kept).err();
    if (*kept) report.history = (*kept)->name();
    std::unique_ptr<manifest_storage> manifest;
    if (options.manifest) {
        auto m = open_manifest_file(image);
        if (!m) return std::move(m).err();
        manifest = std::move(*m);
    }
    // Even a run without a journal of its own never patches over a half-done one.
    auto done = recover_in_place(image, **journal, kept->get(), manifest.get());
    report.journal_moved_away = (*journal)->moved_away();
    if (!done) return std::move(done).err();
    if (done->action != recovery_action::none && options.on_recovered) options.on_recovered(*done, report.journal);
    return opened_image{std::move(*journal), std::move(*kept), std::move(manifest)};
}

}  // namespace

result<update_report> update_in_place(in_place_fd& image, const delta_opener& open, update_options options) {
    update_report report;
    auto opened = open_and_recover(image, options, report);
    if (!opened) return std::move(opened).err();
    if (opened->kept && !options.journal)
        return fail(errc::param_error, report.image + ": keeps a history (" + report.history +
                                           "), which needs the undo journal: nothing was changed");
    in_place_options& o = options.patch;
    o.journal = options.journal ? opened->journal.get() : nullptr;
    o.manifest = opened->manifest.get();
    o.keep_history = opened->kept.get();
    auto done = patch_in_place(open, image, o);
    report.journal_moved_away = report.journal_moved_away || opened->journal->moved_away();
    if (!done) return std::move(done).err();
    report.stats = std::move(*done);
    return report;
}

result<update_report> update_in_place(const std::string& image_path, const delta_opener& open, update_options options) {
    auto image = in_place_fd::open(image_path);
    if (!image) return std::move(image).err();
    return update_in_place(*image, open, std::move(options));
}

result<update_report> recover_image(in_place_fd& image, update_options options) {
    update_report report;
    options.keep_history = false;  // recovery keeps points only where a history exists
    auto opened = open_and_recover(image, options, report);
    if (!opened) return std::move(opened).err();
    // Holding the lock with everything recovered, a note still on the file names a
    // journal or staging file that no longer counts (deleted by hand, never valid).
    image.clear_journal_mark();
    return report;
}

}  // namespace rdelta
