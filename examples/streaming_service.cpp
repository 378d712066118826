// streaming_service.cpp - how a sync service drives rdelta without blocking: the
// signature, the delta and the patch are streamed through job_pump in pieces of
// whatever size the network delivers, and no job ever needs its whole input.
//
//   streaming_service        (generates its own data; exits 0 when the round trip matches)
#include <rdelta/rdelta.hpp>

#include <cstdio>
#include <random>
#include <vector>

using namespace rdelta;

namespace {

using bytes = std::vector<std::uint8_t>;

// Feed `data` to a job in random pieces of 1 to 9000 bytes, as a socket would.
result<bytes> stream_through(job& j, const bytes& data, std::mt19937& net) {
    bytes out;
    job_pump pump(j, [&](std::span<const std::uint8_t> b) -> result<void> {
        out.insert(out.end(), b.begin(), b.end());  // e.g. send() to the peer
        return {};
    });
    std::size_t at = 0;
    for (;;) {
        const std::size_t n = std::min<std::size_t>(data.size() - at, 1 + net() % 9000);
        const bool last = at + n == data.size();
        auto status = pump.push({data.data() + at, n}, last);
        if (!status) return std::move(status).err();
        if (*status == job_status::done) return out;
        if (last) return fail(errc::internal_error, "the job did not finish");
        at += n;
    }
}

}  // namespace

int main() {
    std::mt19937 rng(42), net(7);
    bytes old_data(2 << 20);
    for (auto& b : old_data) b = static_cast<std::uint8_t>(rng());
    bytes new_data = old_data;
    for (int i = 0; i < 20; ++i) new_data[rng() % new_data.size()] ^= 0x5a;  // scattered edits
    new_data.insert(new_data.begin() + 100000, 5000, 0x11);                  // an insertion

    // Receiver: sign what it has and send the signature.
    auto sig_job = make_signature_job(recommended_sig_params(old_data.size()));
    auto sig_bytes = stream_through(*sig_job, old_data, net);
    if (!sig_bytes) return std::fprintf(stderr, "%s\n", sig_bytes.err().message.c_str()), 1;

    // Sender: load the signature as it arrives, then stream the delta back.
    signature sig;
    auto loader = make_loadsig_job(&sig, "peer signature");
    if (auto loaded = stream_through(*loader, *sig_bytes, net); !loaded)
        return std::fprintf(stderr, "%s\n", loaded.err().message.c_str()), 1;
    if (auto indexed = sig.build_index(); !indexed)
        return std::fprintf(stderr, "%s\n", indexed.err().message.c_str()), 1;
    // delta_options' default appends the checksum trailer: the receiver verifies what it rebuilds.
    auto delta_job = make_delta_job(sig);
    auto delta = stream_through(*delta_job, new_data, net);
    if (!delta) return std::fprintf(stderr, "%s\n", delta.err().message.c_str()), 1;

    // Receiver: apply the delta as it arrives; COPY commands read the old data.
    memory_basis basis(old_data);
    patch_options options;
    options.delta_name = "peer delta";
    options.max_output = 64 << 20;    // an untrusted peer cannot make us write more
    options.require_checksum = true;  // a delta without trailer could not be verified
    auto patch_job = make_patch_job(basis, options);
    auto rebuilt = stream_through(*patch_job, *delta, net);
    if (!rebuilt) return std::fprintf(stderr, "%s\n", rebuilt.err().message.c_str()), 1;

    std::printf("signature %zu bytes, delta %zu bytes for %zu bytes of new data: %s\n", sig_bytes->size(),
                delta->size(), new_data.size(), *rebuilt == new_data ? "rebuilt exactly" : "MISMATCH");
    return *rebuilt == new_data ? 0 : 1;
}
