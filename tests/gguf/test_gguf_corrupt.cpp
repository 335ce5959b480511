// Damaged and hostile GGUF files: each must give a hearth::Error that names the
// file and says what is wrong, never a crash, a huge allocation or a read out of bounds.
#include "engine/error.h"
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/gguf_value.h"
#include "engine/gguf/gguf_writer.h"
#include "tests/support/test_support.h"
#include <QTest>
#include <algorithm>
#include <filesystem>

using namespace hearth;
using namespace hearth::gguf;
using kernels::TensorType;

namespace {

// Builds GGUF bytes field by field, so that any field can hold any value.
struct Raw {
    std::string bytes;

    Raw& u8(uint8_t v) { return pod(v); }
    Raw& u32(uint32_t v) { return pod(v); }
    Raw& u64(uint64_t v) { return pod(v); }
    Raw& str(const std::string& s) {
        u64(s.size());
        bytes += s;
        return *this;
    }
    Raw& header(uint64_t tensors, uint64_t entries, uint32_t version = 3) {
        bytes += "GGUF";
        return u32(version).u64(tensors).u64(entries);
    }
    Raw& kv_u32(const std::string& key, uint32_t v) { return str(key).u32(4).u32(v); }
    Raw& kv_str(const std::string& key, const std::string& v) { return str(key).u32(8).str(v); }
    Raw& tensor(const std::string& name, std::vector<uint64_t> dims, uint32_t type, uint64_t offset) {
        str(name).u32(static_cast<uint32_t>(dims.size()));
        for (uint64_t d : dims)
            u64(d);
        return u32(type).u64(offset);
    }
    Raw& align(size_t a = 32) {
        bytes.append((a - bytes.size() % a) % a, '\0');
        return *this;
    }
    Raw& zeros(size_t n) {
        bytes.append(n, '\0');
        return *this;
    }
    template <typename T> Raw& pod(T v) {
        bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
        return *this;
    }
};

// Writes a fresh file each time: rewriting one in place makes ext4 flush it to disk on close.
void write_fresh(const std::string& path, const std::string& bytes) {
    std::filesystem::remove(path);
    test::write_file(path, bytes);
}

// The message of the Error that opening path throws, or an empty string when it opens.
QString open_error(const std::string& path) {
    try {
        GgufFile::open(path);
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

// A small valid file with metadata of several kinds and three tensors; the last
// tensor ends the file, so every shorter prefix is missing something.
std::string small_valid_file(const std::string& dir) {
    GgufWriter w;
    w.set("general.architecture", string_value("llama"));
    w.set("llama.block_count", uint32_value(1));
    w.set("x.floats", float32_array({1.0f, 2.0f}));
    w.set("x.nested", array_value(ValueType::Array, {string_array({"a", "bc"})}));
    w.set("x.flag", bool_value(true));
    w.add_tensor("a", {32}, TensorType::F32, std::vector<std::byte>(128, std::byte{1}));
    w.add_tensor("b", {32, 2}, TensorType::Q8_0, std::vector<std::byte>(68, std::byte{2}));
    w.add_tensor("c", {8}, TensorType::F32, std::vector<std::byte>(32, std::byte{3}));
    const std::string path = dir + "/small.gguf";
    w.write(path);
    return path;
}

// Bytes that the tensor data of f needs: everything past them is padding.
size_t needed_bytes(const GgufFile& f) {
    size_t end = f.data_offset();
    for (const auto& t : f.tensors())
        end = std::max(end, f.data_offset() + t.offset + t.bytes);
    return end;
}

} // namespace

class TestGgufCorrupt : public QObject {
    Q_OBJECT

    std::string dir_;

    // Opens every prefix of the file shorter than the bytes it needs (at the given offsets)
    // and expects a truncation error naming the prefix file.
    void expect_truncation_errors(const std::string& source, const std::vector<size_t>& offsets) {
        const std::string bytes = test::read_file(source);
        const std::string path = dir_ + "/truncated.gguf";
        const QString prefix = QString::fromStdString(path) + ": ";
        for (size_t n : offsets) {
            write_fresh(path, bytes.substr(0, n));
            const QString message = open_error(path);
            const bool named = message.startsWith(prefix);
            const bool says = n == 0 ? message.contains("empty") : message.contains("truncated");
            if (!named || !says)
                QFAIL(qPrintable("prefix of " + QString::number(n) + " bytes: '" + message + "'"));
        }
    }

private slots:
    void initTestCase() { dir_ = test::make_temp_dir("gguf-corrupt"); }

    void truncationAtEveryByte() {
        const std::string source = small_valid_file(dir_);
        const auto f = GgufFile::open(source);
        const size_t needed = needed_bytes(*f);
        QCOMPARE(needed, f->file_size());
        std::vector<size_t> offsets(needed);
        for (size_t i = 0; i < needed; ++i)
            offsets[i] = i;
        expect_truncation_errors(source, offsets);
    }

    // The F32 file's first tensor is larger than many of its prefixes: they must still read as
    // cut off, not as a tensor too large for the file.
    void truncationOfARealModel_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("Q4_K_M") << "stories260K-Q4_K_M";
        QTest::newRow("F32") << "stories260K";
    }
    void truncationOfARealModel() {
        QFETCH(QString, model);
        const std::string source = test::testdata("models/" + model.toStdString() + ".gguf");
        const auto f = GgufFile::open(source);
        const size_t needed = needed_bytes(*f);
        std::vector<size_t> offsets;
        for (size_t i = 0; i < 4096; ++i)
            offsets.push_back(i); // the header and the first entries
        for (size_t i = 4096; i < needed; i += 997)
            offsets.push_back(i);
        for (size_t i = f->data_offset() - 40; i < f->data_offset() + 8; ++i)
            offsets.push_back(i);
        offsets.push_back(needed - 1);
        expect_truncation_errors(source, offsets);
    }

    void corruptFiles_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("keyword");
        const auto row = [](const char* name, const Raw& raw, const char* keyword) {
            QTest::newRow(name) << QByteArray::fromStdString(raw.bytes) << QString(keyword);
        };
        const uint64_t huge = uint64_t{1} << 62;

        Raw magic;
        magic.bytes = "GGML";
        magic.u32(3).u64(0).u64(0);
        row("wrong magic", magic, "magic");
        row("version 1", Raw().header(0, 0, 1), "version 1");
        row("version 4", Raw().header(0, 0, 4), "version 4");
        row("version 0", Raw().header(0, 0, 0), "version 0");
        row("big-endian", Raw().header(0, 0, 0x03000000), "big-endian");
        row("huge tensor count", Raw().header(huge, 0).zeros(64), "tensor count");
        row("huge metadata count", Raw().header(0, huge).zeros(64), "metadata count");
        row("tensor count over the file", Raw().header(5, 0).zeros(100), "tensor count");
        row("huge key length", Raw().header(0, 1).u64(huge).zeros(32), "length");
        row("huge string value", Raw().header(0, 1).str("k").u32(8).u64(huge).zeros(8), "length");
        row("huge array length", Raw().header(0, 1).str("k").u32(9).u32(4).u64(huge).zeros(64),
            "array length");
        row("array over the file", Raw().header(0, 1).str("k").u32(9).u32(6).u64(100).zeros(396),
            "array length");
        row("string array over the file", Raw().header(0, 1).str("k").u32(9).u32(8).u64(10).zeros(72),
            "array length");
        {
            // An array of arrays, each claiming a huge length.
            Raw bomb;
            bomb.header(0, 1).str("k").u32(9).u32(9).u64(3).u32(0).u64(huge).zeros(32);
            row("nested array bomb", bomb, "array length");
            // Arrays nested 1000 deep: refused before the recursion runs away.
            Raw deep;
            deep.header(0, 1).str("k").u32(9);
            for (int i = 0; i < 1000; ++i)
                deep.u32(9).u64(1);
            deep.u32(0).u64(0);
            row("deeply nested arrays", deep, "nest");
        }
        row("unknown value type", Raw().header(0, 1).str("k").u32(13).zeros(16), "unknown value type 13");
        row("unknown array element type", Raw().header(0, 1).str("k").u32(9).u32(99).u64(0),
            "unknown value type 99");
        row("bad bool", Raw().header(0, 1).str("k").u32(7).u8(2), "bool");
        row("empty key", Raw().header(0, 1).str("").u32(4).u32(1), "empty key");
        row("duplicate key", Raw().header(0, 2).kv_u32("k", 1).kv_u32("k", 2), "duplicate metadata key 'k'");
        row("alignment 0", Raw().header(0, 1).kv_u32("general.alignment", 0), "alignment");
        row("alignment 48", Raw().header(0, 1).kv_u32("general.alignment", 48), "alignment");
        row("alignment huge", Raw().header(0, 1).kv_u32("general.alignment", 1u << 31), "alignment");
        row("alignment as string", Raw().header(0, 1).kv_str("general.alignment", "32"), "alignment");

        const auto one_tensor = [](std::vector<uint64_t> dims, uint32_t type, uint64_t offset, size_t data) {
            Raw r;
            r.header(1, 0).tensor("blk.0.attn_q.weight", std::move(dims), type, offset).align().zeros(data);
            return r;
        };
        row("tensor outside the file", one_tensor({32}, 0, 0, 64), "outside the file");
        row("tensor offset past the end", one_tensor({32}, 0, huge, 256), "outside the file");
        row("misaligned offset", one_tensor({8}, 0, 4, 64), "misaligned");
        row("unknown tensor type", one_tensor({32}, 99, 0, 128),
            "'blk.0.attn_q.weight' has unknown tensor type id 99");
        row("removed tensor type 4", one_tensor({32}, 4, 0, 128), "unknown tensor type id 4");
        row("five dimensions", one_tensor({32, 1, 1, 1, 1}, 0, 0, 128), "5 dimensions");
        row("no dimensions", one_tensor({}, 0, 0, 128), "0 dimensions");
        row("zero dimension", one_tensor({32, 0}, 0, 0, 128), "zero dimension");
        row("dims overflow", one_tensor({1ull << 40, 1ull << 40}, 0, 0, 128), "overflow");
        row("dims overflow 64 bits", one_tensor({1ull << 32, 1ull << 32, 1ull << 32}, 0, 0, 128), "overflow");
        row("dim over int64", one_tensor({32, 1ull << 63}, 0, 0, 128), "overflow");
        row("row not a block multiple", one_tensor({33, 2}, 8, 0, 128), "multiple");
        {
            Raw r;
            r.header(2, 0).tensor("a", {32}, 0, 0).tensor("b", {32}, 0, 64).align().zeros(192);
            row("overlapping tensors", r, "overlap");
            Raw dup;
            dup.header(2, 0).tensor("a", {8}, 0, 0).tensor("a", {8}, 0, 32).align().zeros(64);
            row("duplicate tensor names", dup, "duplicate tensor name 'a'");
            Raw empty;
            empty.header(1, 0).tensor("", {8}, 0, 0).align().zeros(32);
            row("empty tensor name", empty, "empty name");
            Raw no_data;
            no_data.header(1, 0).tensor("a", {8}, 0, 0);
            row("no data section", no_data, "truncated");
        }
        {
            // A data offset that is aligned to 32 but not to the file's own alignment of 64.
            Raw r;
            r.header(2, 1).kv_u32("general.alignment", 64).tensor("a", {8}, 0, 0).tensor("b", {8}, 0, 32);
            r.align(64).zeros(128);
            row("offset not aligned to general.alignment", r, "misaligned");
        }
        row("empty file", Raw(), "empty");
        Raw short_magic;
        short_magic.bytes = "GG";
        row("two bytes", short_magic, "truncated");
    }

    void corruptFiles() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, keyword);
        const std::string path = dir_ + "/corrupt.gguf";
        test::write_file(path, bytes.toStdString());
        const QString message = open_error(path);
        QVERIFY2(message.startsWith(QString::fromStdString(path) + ": "),
                 qPrintable("got: '" + message + "'"));
        QVERIFY2(message.contains(keyword), qPrintable("got: '" + message + "'"));
    }

    // The same shapes, made well formed, open: the cases above fail for the stated reason only.
    void wellFormedCounterparts() {
        const std::string path = dir_ + "/fine.gguf";
        Raw r;
        r.header(2, 2).kv_u32("general.alignment", 64).kv_str("k", "v");
        r.tensor("a", {8}, 0, 0).tensor("b", {32, 2}, 8, 64).align(64).zeros(64 + 68);
        test::write_file(path, r.bytes);
        const QString message = open_error(path);
        QVERIFY2(message.isEmpty(), qPrintable(message));
        const auto f = GgufFile::open(path);
        QCOMPARE(f->alignment(), size_t{64});
        QCOMPARE(f->find_tensor("b")->type, TensorType::Q8_0);
        QCOMPARE(f->find_tensor("b")->bytes, size_t{68});
    }

    // Flipping any single byte of the header and metadata gives either a valid file or an Error:
    // never a crash (run under the sanitizers too).
    void singleByteDamage() {
        const std::string source = small_valid_file(dir_);
        const std::string bytes = test::read_file(source);
        const auto f = GgufFile::open(source);
        const std::string path = dir_ + "/damaged.gguf";
        int errors = 0;
        for (size_t i = 0; i < f->data_offset(); ++i) {
            for (unsigned char flip : {0x01, 0x80, 0xFF}) {
                std::string damaged = bytes;
                damaged[i] = static_cast<char>(damaged[i] ^ flip);
                write_fresh(path, damaged);
                const QString message = open_error(path);
                if (!message.isEmpty()) {
                    ++errors;
                    QVERIFY2(message.startsWith(QString::fromStdString(path) + ": "), qPrintable(message));
                }
            }
        }
        QVERIFY(errors > 0);
    }
};

QTEST_MAIN(TestGgufCorrupt)
#include "test_gguf_corrupt.moc"
