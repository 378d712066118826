// test_cli_options.cpp - the rdiff 2.3.2 command line, as observed from Debian's /usr/bin/rdiff.
#include <doctest/doctest.h>

#include "cli/options.hpp"

#include <rdelta/version.hpp>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace rdelta::cli;
using rdelta::codec;
using strings = std::vector<std::string>;

std::variant<request, usage_error> parse(std::initializer_list<const char*> args, bool as_rdiff = true) {
    std::vector<const char*> argv{as_rdiff ? "rdiff" : "rdelta"};
    argv.insert(argv.end(), args);
    return parse_command_line(static_cast<int>(argv.size()), argv.data(), as_rdiff);
}

request accepted(std::initializer_list<const char*> args, bool as_rdiff = true) {
    auto result = parse(args, as_rdiff);
    if (const auto* e = std::get_if<usage_error>(&result)) FAIL_CHECK("usage error: ", e->message);
    REQUIRE(std::holds_alternative<request>(result));
    return std::get<request>(result);
}

std::string rejected(std::initializer_list<const char*> args, bool as_rdiff = true) {
    auto result = parse(args, as_rdiff);
    REQUIRE(std::holds_alternative<usage_error>(result));
    return std::get<usage_error>(result).message;
}

std::int64_t block_size(std::initializer_list<const char*> args) {
    return accepted(args).block_size;
}

}  // namespace

TEST_CASE("defaults") {
    const request r = accepted({"signature"});
    CHECK(r.act == action::signature);
    CHECK_FALSE(r.show_help);
    CHECK_FALSE(r.show_version);
    CHECK_FALSE(r.verbose);
    CHECK(r.verbose_count == 0);
    CHECK_FALSE(r.statistics);
    CHECK_FALSE(r.force);
    CHECK(r.hash == "blake2");
    CHECK(r.rollsum == "rabinkarp");
    CHECK(r.block_size == 0);
    CHECK(r.sum_size == 0);
    CHECK(r.input_size == 0);
    CHECK(r.output_size == 0);
    CHECK(r.files.empty());
    CHECK(r.threads == 0);
    CHECK_FALSE(r.progress.has_value());
    CHECK_FALSE(r.nocache);
}

TEST_CASE("option forms") {
    CHECK(block_size({"-b512", "sig"}) == 512);
    CHECK(block_size({"-b", "512", "sig"}) == 512);
    CHECK(block_size({"--block-size=512", "sig"}) == 512);
    CHECK(block_size({"--block-size", "512", "sig"}) == 512);
    CHECK(block_size({"-b=512", "sig"}) == 512);                   // popt skips '=' after a short option
    CHECK(rejected({"-b", "=5"}) == "invalid numeric value: =5");  // ...only when glued
    CHECK(accepted({"-S", "8", "-I", "9", "-O", "10", "sig"}).sum_size == 8);
    CHECK(accepted({"--input-size=9", "sig"}).input_size == 9);
    CHECK(accepted({"--output-size", "10", "sig"}).output_size == 10);
    CHECK(accepted({"-O10", "sig"}).output_size == 10);
}

TEST_CASE("flags, short and long") {
    for (const char* v : {"-v", "--verbose"}) CHECK(accepted({v, "sig"}).verbose);
    for (const char* s : {"-s", "--statistics", "--stats"}) CHECK(accepted({s, "sig"}).statistics);
    for (const char* f : {"-f", "--force"}) CHECK(accepted({f, "sig"}).force);
    CHECK(accepted({"-v", "-vv", "sig"}).verbose_count == 3);
}

TEST_CASE("clustered short options") {
    const request a = accepted({"-sf", "sig"});
    CHECK((a.statistics && a.force));
    for (auto r : {accepted({"-sfH", "md4", "sig"}), accepted({"-sfHmd4", "sig"})}) {
        CHECK((r.statistics && r.force));
        CHECK(r.hash == "md4");
    }
    CHECK(accepted({"-sb512", "sig"}).block_size == 512);
    CHECK(accepted({"-fS", "8", "sig"}).sum_size == 8);
}

TEST_CASE("a value may start with '-'") {
    CHECK(accepted({"-S", "-1", "sig"}).sum_size == -1);
    CHECK(accepted({"--sum-size", "-1", "sig"}).sum_size == -1);
    CHECK(accepted({"-S-1", "sig"}).sum_size == -1);
    CHECK(accepted({"--sum-size=-1", "sig"}).sum_size == -1);
    CHECK(accepted({"-H", "-s", "sig"}).hash == "-s");  // spelled like an option, still a value
    CHECK(accepted({"--rollsum", "--force", "sig"}).rollsum == "--force");
    CHECK(rejected({"-S", "-s"}) == "invalid numeric value: -s");
    CHECK(rejected({"-b", "--help"}) == "invalid numeric value: --help");
    CHECK(rejected({"-b", "--", "sig"}) == "invalid numeric value: --");
    CHECK(rejected({"-b", "-", "sig"}) == "invalid numeric value: -");
}

TEST_CASE("hash and rollsum names are raw strings") {
    CHECK(accepted({"-H", "sha1", "sig"}).hash == "sha1");
    CHECK(accepted({"--rollsum=foo", "sig"}).rollsum == "foo");
    CHECK(accepted({"--hash=", "sig"}).hash.empty());
    CHECK(accepted({"-H=md4", "sig"}).hash == "md4");
    CHECK(accepted({"--hash==x", "sig"}).hash == "=x");
}

TEST_CASE("numbers: strtol base detection") {
    CHECK(block_size({"-b", "0x100", "sig"}) == 256);
    CHECK(block_size({"-b", "0X1f", "sig"}) == 31);
    CHECK(block_size({"-b", "010", "sig"}) == 8);
    CHECK(block_size({"-b", "", "sig"}) == 0);
    CHECK(block_size({"--block-size=", "sig"}) == 0);
    CHECK(block_size({"-b=", "sig"}) == 0);
    CHECK(block_size({"-b", "  12", "sig"}) == 12);
    CHECK(block_size({"-b", "+5", "sig"}) == 5);
    CHECK(block_size({"-b", "-0x10", "sig"}) == -16);
    CHECK(block_size({"-b", "2147483647", "sig"}) == 2147483647);
    CHECK(block_size({"-b", "-2147483648", "sig"}) == -2147483648LL);
}

TEST_CASE("numbers: junk and range") {
    CHECK(rejected({"-b", "12abc"}) == "invalid numeric value: 12abc");
    CHECK(rejected({"-b", "12 "}) == "invalid numeric value: 12 ");
    CHECK(rejected({"-b", " "}) == "invalid numeric value:  ");
    CHECK(rejected({"-b", "0x"}) == "invalid numeric value: 0x");
    CHECK(rejected({"-b", "08"}) == "invalid numeric value: 08");
    CHECK(rejected({"-b", "3000000000"}) == "number too large or too small: 3000000000");
    CHECK(rejected({"-S", "2147483648"}) == "number too large or too small: 2147483648");
    CHECK(rejected({"-I", "-2147483649"}) == "number too large or too small: -2147483649");
    CHECK(rejected({"-O", "99999999999999999999"}) == "number too large or too small: 99999999999999999999");
    // Junk is reported before range, as popt does.
    CHECK(rejected({"-b", "99999999999999999999x"}) == "invalid numeric value: 99999999999999999999x");
}

TEST_CASE("messages name the argv element popt was reading") {
    CHECK(rejected({"-b12abc"}) == "invalid numeric value: -b12abc");
    CHECK(rejected({"-sb12x", "sig"}) == "invalid numeric value: -sb12x");
    CHECK(rejected({"--block-size=12abc"}) == "invalid numeric value: --block-size=12abc");
    CHECK(rejected({"--sum-size", "3000000000"}) == "number too large or too small: 3000000000");
    CHECK(rejected({"-bs"}) == "invalid numeric value: -bs");
    CHECK(rejected({"-block-size=5"}) == "invalid numeric value: -block-size=5");
}

TEST_CASE("missing argument") {
    CHECK(rejected({"-b"}) == "missing argument: -b");
    CHECK(rejected({"--block-size"}) == "missing argument: --block-size");
    CHECK(rejected({"signature", "in", "-H"}) == "missing argument: -H");
    CHECK(rejected({"--hash"}) == "missing argument: --hash");
    CHECK(rejected({"-sb"}) == "missing argument: -sb");
    CHECK(rejected({"-j"}, false) == "missing argument: -j");
    CHECK(rejected({"-j"}) == "unknown option: -j");  // rdiff has no -j
}

TEST_CASE("unknown option") {
    CHECK(rejected({"--bogus"}) == "unknown option: --bogus");
    CHECK(rejected({"--stat"}) == "unknown option: --stat");  // no abbreviations
    CHECK(rejected({"--h"}) == "unknown option: --h");
    CHECK(rejected({"-x"}) == "unknown option: -x");
    // In a cluster popt names the whole element, not just the bad letter.
    CHECK(rejected({"-sx"}) == "unknown option: -sx");
    CHECK(rejected({"-xs"}) == "unknown option: -xs");
    CHECK(rejected({"-s-"}) == "unknown option: -s-");
    CHECK(rejected({"--bogus=3"}) == "unknown option: --bogus=3");
    CHECK(rejected({"--bogus="}) == "unknown option: --bogus=");
    CHECK(rejected({"---s"}) == "unknown option: ---s");
    CHECK(rejected({"---"}) == "unknown option: ---");
    CHECK(rejected({"--="}) == "unknown option: --=");
    CHECK(rejected({"-="}) == "unknown option: -=");
    CHECK(rejected({"-force"}) == "unknown option: -force");
    CHECK(rejected({"--gzip"}) == "unknown option: --gzip");  // Debian's rdiff has no -z/-i
    CHECK(rejected({"-z"}) == "unknown option: -z");
    CHECK(rejected({"-s", "-x"}) == "unknown option: -x");
}

TEST_CASE("option does not take an argument") {
    CHECK(rejected({"--force=1"}) == "option does not take an argument: --force=1");
    CHECK(rejected({"--force="}) == "option does not take an argument: --force=");
    CHECK(rejected({"--help=x"}) == "option does not take an argument: --help=x");
    CHECK(rejected({"-f=1"}) == "option does not take an argument: -f=1");
    CHECK(rejected({"-sf="}) == "option does not take an argument: -sf=");
    CHECK(rejected({"-V=1"}) == "option does not take an argument: -V=1");  // before -V acts
}

TEST_CASE("action: a prefix of signature, delta or patch") {
    for (const char* a : {"", "s", "sig", "signature"}) CHECK(accepted({a}).act == action::signature);
    for (const char* a : {"d", "de", "delta"}) CHECK(accepted({a, "sig"}).act == action::delta);
    for (const char* a : {"p", "pat", "patch"}) CHECK(accepted({a, "basis"}).act == action::patch);
    const std::string no_action = "You must specify an action: `signature', `delta', or `patch'.";
    CHECK(rejected({}) == no_action);
    CHECK(rejected({"-s"}) == no_action);
    for (const char* a : {"x", "SIG", "signaturex", "deltas", "-"}) CHECK(rejected({a}) == no_action);
    const request r = accepted({"signature", "a", "b", "c"});
    CHECK(r.files == strings{"a", "b", "c"});  // too many: the command's business
}

TEST_CASE("delta and patch need their first file") {
    CHECK(rejected({"d"}) == "Usage for delta: rdiff [OPTIONS] delta SIGNATURE [NEWFILE [DELTA]]");
    CHECK(rejected({"patch", "-s"}) == "Usage for patch: rdiff [OPTIONS] patch BASIS [DELTA [NEW]]");
    CHECK(rejected({"delta"}, false) == "Usage for delta: rdelta [OPTIONS] delta SIGNATURE [NEWFILE [DELTA]]");
    CHECK(rejected({"p"}, false) == "Usage for patch: rdelta [OPTIONS] patch BASIS [DELTA [NEW]]");
    CHECK(accepted({"delta", "-"}).files == strings{"-"});
}

TEST_CASE("-- ends the options") {
    const request a = accepted({"--", "signature", "-V"});
    CHECK(a.files == strings{"-V"});
    CHECK(accepted({"signature", "--", "-b", "5"}).files == strings{"-b", "5"});
    CHECK(accepted({"-s", "--", "sig", "--"}).files == strings{"--"});
    CHECK(rejected({"--", "-V"}) == "You must specify an action: `signature', `delta', or `patch'.");
    CHECK(rejected({"--", "--bogus"}) == "You must specify an action: `signature', `delta', or `patch'.");
}

TEST_CASE("options anywhere; '-' is a file") {
    const request r = accepted({"signature", "in", "-b", "512", "-", "--force"});
    CHECK(r.files == strings{"in", "-"});
    CHECK(r.block_size == 512);
    CHECK(r.force);
}

TEST_CASE("last occurrence wins") {
    CHECK(block_size({"-b", "1", "sig", "-b", "2"}) == 2);
    CHECK(accepted({"-H", "md4", "sig", "--hash", "blake2"}).hash == "blake2");
    CHECK(accepted({"--progress", "--no-progress", "sig"}, false).progress == false);
    CHECK(accepted({"--no-progress", "--progress", "sig"}, false).progress == true);
    CHECK(accepted({"-j", "2", "--threads=3", "sig"}, false).threads == 3);
}

TEST_CASE("help and version act when reached, left to right") {
    CHECK(accepted({"--help", "--bogus"}).show_help);
    CHECK(rejected({"--bogus", "--help"}) == "unknown option: --bogus");
    CHECK(accepted({"-V", "x"}).show_version);
    CHECK(accepted({"x", "-V"}).show_version);  // the action is checked after all options
    CHECK(accepted({"-V", "--bogus"}).show_version);
    CHECK(accepted({"--help", "-b", "12abc"}).show_help);
    CHECK(rejected({"-b", "12abc", "--help"}) == "invalid numeric value: 12abc");
    CHECK(accepted({"-Vx"}).show_version);  // -V acts before x is looked at
    CHECK(rejected({"-xV"}) == "unknown option: -xV");
    CHECK(accepted({"-Vb"}).show_version);  // ...and before b's missing value
    CHECK(accepted({"--help", "-b"}).show_help);
    CHECK_FALSE(accepted({"--version", "--help"}).show_help);
    for (const char* h : {"-?", "-h", "--help", "-s?", "-sh"}) CHECK(accepted({h}).show_help);
    const request v = accepted({"-v", "-vV"});
    CHECK(v.show_version);
    CHECK(v.verbose_count == 2);  // rdiff warns per -v, even on the way to --version
    auto err = parse({"-v", "-v", "--bogus"});
    REQUIRE(std::holds_alternative<usage_error>(err));
    CHECK(std::get<usage_error>(err).verbose_count == 2);
}

TEST_CASE("rdelta extensions under the name rdelta") {
    CHECK(accepted({"-j", "4", "sig"}, false).threads == 4);
    CHECK(accepted({"-j4", "sig"}, false).threads == 4);
    CHECK(accepted({"--threads=0x10", "sig"}, false).threads == 16);
    CHECK(accepted({"--threads", "3000000000", "sig"}, false).threads == 3000000000LL);
    CHECK(accepted({"--progress", "sig"}, false).progress == true);
    CHECK(accepted({"--no-progress", "sig"}, false).progress == false);
    CHECK(accepted({"--nocache", "sig"}, false).nocache);
    CHECK(rejected({"-j", "9223372036854775808"}, false) == "number too large or too small: 9223372036854775808");
    CHECK(rejected({"--threads=2x"}, false) == "invalid numeric value: --threads=2x");
    CHECK(rejected({"--progress=1"}, false) == "option does not take an argument: --progress=1");
}

TEST_CASE("rdelta extensions are unknown options under the name rdiff, as in Debian's rdiff") {
    // popt names the element it failed on, value and all, and consumes nothing more.
    CHECK(rejected({"-j", "4", "sig"}) == "unknown option: -j");
    CHECK(rejected({"-j4", "sig"}) == "unknown option: -j4");
    CHECK(rejected({"-sj", "sig"}) == "unknown option: -sj");
    CHECK(rejected({"--threads=2", "sig"}) == "unknown option: --threads=2");
    CHECK(rejected({"--max-output", "5", "sig"}) == "unknown option: --max-output");
    CHECK(rejected({"--in-place=", "sig"}) == "unknown option: --in-place=");
    for (const char* o : {"--progress", "--no-progress", "--nocache", "--no-sparse", "--checksum", "--verify",
                          "--in-place", "--in-place-safe", "--gzip", "--bzip2", "--zstd", "-z", "-i"}) {
        CAPTURE(o);
        CHECK(rejected({o, "sig"}) == std::string("unknown option: ") + o);
    }
}

TEST_CASE("compression options: rdelta only, level attached, last one wins") {
    const auto compressed = [](std::initializer_list<const char*> args) {
        const request r = accepted(args, false);
        return std::pair{r.compression, r.compression_level};
    };
    CHECK(accepted({"sig"}, false).compression == codec::none);
    CHECK(compressed({"-z", "sig"}) == std::pair{codec::gzip, 6});
    CHECK(compressed({"-z1", "sig"}) == std::pair{codec::gzip, 1});
    CHECK(compressed({"-z=9", "sig"}) == std::pair{codec::gzip, 9});  // popt skips '=' after a short option
    CHECK(compressed({"--gzip", "sig"}) == std::pair{codec::gzip, 6});
    CHECK(compressed({"--gzip=3", "sig"}) == std::pair{codec::gzip, 3});
    CHECK(compressed({"-i", "sig"}) == std::pair{codec::bzip2, 9});
    CHECK(compressed({"-i4", "sig"}) == std::pair{codec::bzip2, 4});
    CHECK(compressed({"--bzip2=0x2", "sig"}) == std::pair{codec::bzip2, 2});
    CHECK(compressed({"--zstd", "sig"}) == std::pair{codec::zstd, 3});
    CHECK(compressed({"--zstd=19", "sig"}) == std::pair{codec::zstd, 19});
    CHECK(compressed({"-sfz2", "sig"}) == std::pair{codec::gzip, 2});  // in a cluster
    CHECK(compressed({"-z", "-i", "sig"}) == std::pair{codec::bzip2, 9});
    CHECK(compressed({"--zstd=7", "sig", "-z"}) == std::pair{codec::gzip, 6});
    // A separate word is never the level: `-z signature` means the default level.
    const request r = accepted({"-z", "signature", "9"}, false);
    CHECK(r.act == action::signature);
    CHECK(r.compression_level == 6);
    CHECK(r.files == strings{"9"});
    CHECK(rejected({"-z0", "sig"}, false) == "gzip level must be 1 to 9: -z0");
    CHECK(rejected({"-z10", "sig"}, false) == "gzip level must be 1 to 9: -z10");
    CHECK(rejected({"-i10", "sig"}, false) == "bzip2 level must be 1 to 9: -i10");
    CHECK(rejected({"--zstd=23", "sig"}, false) == "zstd level must be 1 to 22: --zstd=23");
    CHECK(rejected({"--zstd=99999999999", "sig"}, false) == "zstd level must be 1 to 22: --zstd=99999999999");
    CHECK(rejected({"--gzip=", "sig"}, false) == "gzip level must be 1 to 9: --gzip=");
    CHECK(rejected({"-zf", "sig"}, false) == "invalid numeric value: -zf");
    CHECK(rejected({"--bzip2=fast", "sig"}, false) == "invalid numeric value: --bzip2=fast");
    // Debian's rdiff has none of them.
    for (const char* o : {"-z", "-z9", "-sz", "--gzip=6", "-i", "--bzip2", "--zstd", "--zstd=3"}) {
        CAPTURE(o);
        CHECK(rejected({o, "sig"}) == std::string("unknown option: ") + o);
    }
}

TEST_CASE("help text: rdiff's, byte for byte") {
    // Captured from Debian 12's `rdiff --help` (librsync 2.3.2).
    const std::string rdiff_help =
        "Usage: rdiff [OPTIONS] signature [BASIS [SIGNATURE]]\n"
        "             [OPTIONS] delta SIGNATURE [NEWFILE [DELTA]]\n"
        "             [OPTIONS] patch BASIS [DELTA [NEWFILE]]\n"
        "\n"
        "Options:\n"
        "  -v, --verbose             Trace internal processing\n"
        "  -V, --version             Show program version\n"
        "  -?, --help                Show this help message\n"
        "  -s, --statistics          Show performance statistics\n"
        "  -f, --force               Force overwriting existing files\n"
        "Signature generation options:\n"
        "  -H, --hash=ALG            Hash algorithm: blake2 (default), md4\n"
        "  -R, --rollsum=ALG         Rollsum algorithm: rabinkarp (default), rollsum\n"
        "Delta-encoding options:\n"
        "  -b, --block-size=BYTES    Signature block size, 0 (default) for recommended\n"
        "  -S, --sum-size=BYTES      Signature strength, 0 (default) for max, -1 for min\n"
        "IO options:\n"
        "  -I, --input-size=BYTES    Input buffer size\n"
        "  -O, --output-size=BYTES   Output buffer size\n";
    CHECK(help_text(true) == rdiff_help);
}

TEST_CASE("help text: rdelta's lists every option") {
    const std::string help = help_text(false);
    CHECK(
        help.starts_with("Usage: rdelta [OPTIONS] signature [BASIS [SIGNATURE]]\n"
                         "              [OPTIONS] delta SIGNATURE [NEWFILE [DELTA]]\n"
                         "              [OPTIONS] patch BASIS [DELTA [NEWFILE]]\n"
                         "              recover IMAGE\n"
                         "              verify [--history] IMAGE\n"
                         "              [OPTIONS] push IMAGE [USER@]HOST:PATH\n"
                         "              [OPTIONS] pull [--at POINT] [USER@]HOST:PATH LOCAL\n"
                         "              history [--json] IMAGE\n"
                         "              restore IMAGE POINT OUTPUT\n"
                         "              prune RULE... [--dry-run] IMAGE\n"
                         "              info [--check] [--json] FILE\n"
                         "              benchmark [--json]\n\n"));
    // Everything rdiff lists, in the same layout...
    const std::string rdiff_options = help_text(true).substr(help_text(true).find("Options:"));
    CHECK(help.find(rdiff_options) != std::string::npos);
    // ...then the extensions.
    for (const char* line :
         {"  -j, --threads=N           ", "      --progress            ", "      --no-progress         ",
          "      --nocache             ", "  -z, --gzip[=LEVEL]        ", "  -i, --bzip2[=LEVEL]       ",
          "      --zstd[=LEVEL]        "}) {
        CAPTURE(line);
        CHECK(help.find(std::string("\n") + line) != std::string::npos);
    }
    CHECK(help.ends_with("\n"));
    CHECK(help.find("--stats") == std::string::npos);  // hidden, as in rdiff
}

TEST_CASE("recover: an action of rdelta only, which needs the image") {
    const char* args[] = {"rdelta", "recover", "disk.img"};
    auto parsed = parse_command_line(3, args, false);
    REQUIRE(std::holds_alternative<request>(parsed));
    CHECK(std::get<request>(parsed).act == action::recover);
    CHECK(std::get<request>(parsed).files == std::vector<std::string>{"disk.img"});
    CHECK(std::holds_alternative<usage_error>(parse_command_line(3, args, true)));  // not rdiff's
    CHECK(std::holds_alternative<usage_error>(parse_command_line(2, args, false)));
    const char* opts[] = {"rdelta", "--no-journal", "--in-place", "patch", "a"};
    auto o = parse_command_line(5, opts, false);
    REQUIRE(std::holds_alternative<request>(o));
    CHECK_FALSE(std::get<request>(o).journal);
    CHECK(std::get<request>(o).in_place);
}

TEST_CASE("options apply to the commands their rows name") {
    const auto refused = [](std::initializer_list<const char*> args) { return rejected(args, false); };
    CHECK(refused({"--verify", "info", "f"}) == "--verify does not apply to info (only to patch)");
    CHECK(refused({"--max-output=5", "recover", "f"}) == "--max-output does not apply to recover (only to patch)");
    CHECK(refused({"signature", "--checksum"}) == "--checksum does not apply to signature (only to delta)");
    CHECK(refused({"-j2", "patch", "a"}) == "--threads does not apply to patch (only to signature, delta, push)");
    CHECK(refused({"--check", "delta", "s"}) == "--check does not apply to delta (only to info)");
    CHECK(refused({"-z", "patch", "a"})
              .starts_with("--gzip does not apply to patch (only to signature, delta, push, pull, restore)"));
    CHECK(option_commands("checksum") == command_bit(action::delta));
    CHECK(option_commands("no-such-option") == 0);
    // rdiff's options are accepted by each of rdiff's commands, under either name.
    for (const char* command : {"signature", "delta", "patch"})
        for (bool as_rdiff : {true, false}) {
            CAPTURE(command);
            const request r = accepted({"-v", "-s", "-f", "-H", "md4", "-R", "rollsum", "-b", "512", "-S", "8", "-I",
                                        "9", "-O", "9", "--stats", command, "x"},
                                       as_rdiff);
            CHECK(r.block_size == 512);
        }
}

TEST_CASE("help: the command, and one command's options") {
    const char* all[] = {"rdelta", "help"};
    auto parsed = parse_command_line(2, all, false);
    REQUIRE(std::holds_alternative<request>(parsed));
    CHECK(std::get<request>(parsed).show_help);
    for (const char* command : {"signature", "delta", "patch", "recover", "info", "benchmark"})
        CHECK(help_text(false).find(std::string("\n  ") + command + " ") != std::string::npos);
    const char* one[] = {"rdelta", "help", "pat"};
    parsed = parse_command_line(3, one, false);
    REQUIRE(std::holds_alternative<request>(parsed));
    CHECK(std::get<request>(parsed).help_topic == action::patch);
    const std::string patch_help = command_help(action::patch);
    CHECK(patch_help.find("--verify") != std::string::npos);
    CHECK(patch_help.find("--checksum ") == std::string::npos);
    CHECK(rejected({"help"}) == "You must specify an action: `signature', `delta', or `patch'.");  // rdiff has none
}

TEST_CASE("a compression level left apart from its option") {
    CHECK(rejected({"-z", "9", "delta", "s"}, false).starts_with("attach the level to -z: -z9"));
    CHECK(rejected({"--zstd", "19", "signature"}, false).starts_with("attach the level to --zstd: --zstd=19"));
    CHECK(accepted({"-z9", "delta", "s"}, false).compression_level == 9);
}

TEST_CASE("version text") {
    const std::string body =
        "Copyright (C) 1997-2016 by Martin Pool, Andrew Tridgell and others.\n"
        "http://librsync.sourcefrog.net/\n"
        "Capabilities: 64 bit files, trace disabled\n"
        "\n"
        "librsync comes with NO WARRANTY, to the extent permitted by law.\n"
        "You may redistribute copies of librsync under the terms of the GNU\n"
        "Lesser General Public License.  For more information about these\n"
        "matters, see the files named COPYING.\n";
    CHECK(version_text(true) == "rdiff (librsync 2.3.2)\n" + body);
    const std::string ours = version_text(false);
    CHECK(ours.rfind(std::string("rdelta ") + RDELTA_VERSION + " (librsync 2.3.2 compatible)\nSIMD in use: ", 0) == 0);
    CHECK(ours.find(std::string("SIMD in use: ") + rdelta::simd_level() + "\n") != std::string::npos);
    CHECK(ours.find("Build: ") != std::string::npos);
    CHECK(ours.find("LGPL-2.1-or-later") != std::string::npos);
    CHECK(ours.find("librsync.sourcefrog.net") == std::string::npos);
}
