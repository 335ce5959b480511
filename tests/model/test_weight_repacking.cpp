// The copy of the weights made at load (engine/model/weight_repacking.h), from a GGUF file this
// test writes: matrices of several MiB are copied in pieces, and every row must come back as the
// file has it, across the pieces' edges, in both layouts, and once for matrices that share data.
// The copy kept on disk (engine/model/repacked_cache.h) is mapped by the next load, and a copy
// that is damaged, cut or stale is made again.
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/model/weight_repacking.h"
#include "kernels/interleaved_rows.h"
#include "kernels/kernel_table.h"

#include <QTemporaryDir>
#include <QTest>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>
#include <vector>

using namespace hearth;
using kernels::TensorType;
using kernels::WeightMatrix;

namespace {

struct MatrixShape {
    const char* name;
    TensorType type;
    int64_t rows, cols;
};

// Larger than a piece (4 MiB), with rows that do not divide into whole pieces.
const MatrixShape kShapes[] = {
    {"q4_k_large", TensorType::Q4_K, 29168, 256}, // 4.0 MiB of whole 16-row groups and 3 more
    {"q6_k_large", TensorType::Q6_K, 20032, 256}, // 4.0 MiB and a little more
    {"q8_0_large", TensorType::Q8_0, 1500, 4096}, // 963 rows to a piece: 1.56 pieces
    {"q4_k_small", TensorType::Q4_K, 32, 512},    // one piece
    {"q4_k_odd_rows", TensorType::Q4_K, 40, 256}, // not whole groups: copied as in the file
};

std::vector<std::byte> random_bytes(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::byte> bytes(n);
    for (std::byte& b : bytes)
        b = static_cast<std::byte>(rng() & 0xff);
    return bytes;
}

// The rows of a matrix in the file's layout, read from wherever the matrix now points.
std::vector<std::byte> rows_as_in_file(const WeightMatrix& m) {
    const size_t bytes = kernels::row_bytes(m.type, m.cols) * static_cast<size_t>(m.rows);
    std::vector<std::byte> rows(bytes);
    if (m.layout == kernels::RowLayout::Interleaved16)
        kernels::unpack_rows16(m.type, m.data, m.cols, 0, m.rows, rows.data());
    else
        std::memcpy(rows.data(), m.data, bytes);
    return rows;
}

// Writes the matrices of kShapes, random bytes from `seed` on; returns each one's bytes.
std::vector<std::vector<std::byte>> write_matrices(const std::string& path, uint32_t seed) {
    std::vector<std::vector<std::byte>> written;
    gguf::GgufWriter writer;
    for (const MatrixShape& s : kShapes) {
        written.push_back(random_bytes(kernels::row_bytes(s.type, s.cols) * size_t(s.rows), seed++));
        writer.add_tensor(s.name, {s.cols, s.rows}, s.type, written.back());
    }
    writer.write(path);
    return written;
}

// Loads the copy of the file's matrices with the given cache; every row must be the file's.
// Returns whether the copy came from the cache; *reads_cache_file tells whether decode would read
// the cache file's pages themselves.
bool load_copy(const std::string& path, const std::vector<std::vector<std::byte>>& written,
               const engine::RepackCacheOptions& cache, bool* reads_cache_file = nullptr) {
    const auto file = gguf::GgufFile::open(path);
    std::vector<WeightMatrix> matrices;
    std::vector<WeightMatrix*> pointers;
    for (const MatrixShape& s : kShapes)
        matrices.push_back({s.type, s.rows, s.cols, file->find_tensor(s.name)->data});
    for (WeightMatrix& m : matrices)
        pointers.push_back(&m);
    engine::RepackedWeights repacked;
    repacked.repack(pointers, *file, cache);
    if (repacked.bytes() == 0) throw std::runtime_error("no copy made");
    for (size_t i = 0; i < matrices.size(); ++i)
        if (rows_as_in_file(matrices[i]) != written[i])
            throw std::runtime_error(std::string("rows differ from the file's: ") + kShapes[i].name);
    if (repacked.reads_cache_file() && !repacked.from_cache())
        throw std::runtime_error("reads a cache file it did not find");
    if (reads_cache_file) *reads_cache_file = repacked.reads_cache_file();
    return repacked.from_cache();
}

std::vector<std::filesystem::path> cached_copies(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> copies;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        copies.push_back(entry.path());
    return copies;
}

// Overwrites one byte of a file at `offset` with its complement.
void flip_byte(const std::filesystem::path& path, std::streamoff offset) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(offset);
    char c = 0;
    f.get(c);
    f.seekp(offset);
    f.put(static_cast<char>(~c));
}

engine::RepackCacheOptions cache_in(const QTemporaryDir& dir) {
    engine::RepackCacheOptions options;
    options.dir = dir.filePath("cache").toStdString();
    options.min_bytes = 0;
    return options;
}

} // namespace

class TestWeightRepacking : public QObject {
    Q_OBJECT
private slots:
    void copiesEveryRowAcrossPieces() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("matrices.gguf").toStdString();
        std::vector<std::vector<std::byte>> written;
        {
            gguf::GgufWriter writer;
            uint32_t seed = 1;
            for (const MatrixShape& s : kShapes) {
                written.push_back(random_bytes(kernels::row_bytes(s.type, s.cols) * size_t(s.rows), seed++));
                writer.add_tensor(s.name, {s.cols, s.rows}, s.type, written.back());
            }
            writer.write(path);
        }
        const auto file = gguf::GgufFile::open(path);

        std::vector<WeightMatrix> matrices;
        for (const MatrixShape& s : kShapes)
            matrices.push_back({s.type, s.rows, s.cols, file->find_tensor(s.name)->data});
        WeightMatrix tied = matrices[0]; // a second use of the same data, as tied embeddings are
        std::vector<WeightMatrix*> pointers;
        for (WeightMatrix& m : matrices)
            pointers.push_back(&m);
        pointers.push_back(&tied);

        engine::RepackedWeights repacked;
        repacked.repack(pointers, *file, engine::RepackCacheOptions{});
        QVERIFY(repacked.bytes() > 0);

        for (size_t i = 0; i < matrices.size(); ++i) {
            const WeightMatrix& m = matrices[i];
            QCOMPARE(m.layout, kernels::load_layout(kernels::active_kernels(), m.type, m.rows, m.cols));
            QVERIFY2(m.data != file->find_tensor(kShapes[i].name)->data, kShapes[i].name);
            QVERIFY2(rows_as_in_file(m) == written[i], kShapes[i].name);
        }
        QCOMPARE(tied.data, matrices[0].data); // one copy for both
        QCOMPARE(tied.layout, matrices[0].layout);
    }

    // A found copy is read where it lies when the system maps the file in huge pages, else
    // copied into memory; never read in place when that is turned off.
    void aSecondLoadMapsTheCachedCopy() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("matrices.gguf").toStdString();
        const auto written = write_matrices(path, 1);
        engine::RepackCacheOptions cache = cache_in(dir);
        bool in_place = true;
        QVERIFY(!load_copy(path, written, cache, &in_place));
        QVERIFY(!in_place);
        QCOMPARE(cached_copies(cache.dir).size(), size_t{1}); // no temporary file left
        QVERIFY(load_copy(path, written, cache, &in_place));
        qInfo("a found copy is %s", in_place ? "read in place (the file is mapped in huge pages)"
                                             : "copied (this system maps the file in 4 KiB pages)");
        QVERIFY(load_copy(path, written, cache));
        cache.read_in_place = false;
        QVERIFY(load_copy(path, written, cache, &in_place));
        QVERIFY(!in_place);
    }

    void aDamagedCopyIsMadeAgain_data() {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<bool>("readInPlace");
        for (const bool in_place : {true, false}) {
            const char* how = in_place ? "read in place where it can" : "copied";
            QTest::addRow("a byte of the copy, %s", how) << "data" << in_place;
            QTest::addRow("the last byte of the copy, %s", how) << "last" << in_place;
            QTest::addRow("a byte of the header, %s", how) << "header" << in_place;
            QTest::addRow("cut short, %s", how) << "cut" << in_place;
            QTest::addRow("empty, %s", how) << "empty" << in_place;
        }
    }
    void aDamagedCopyIsMadeAgain() {
        QFETCH(QString, damage);
        QFETCH(bool, readInPlace);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("matrices.gguf").toStdString();
        const auto written = write_matrices(path, 1);
        engine::RepackCacheOptions cache = cache_in(dir);
        cache.read_in_place = readInPlace;
        QVERIFY(!load_copy(path, written, cache));
        const std::filesystem::path copy = cached_copies(cache.dir).at(0);
        const auto size = static_cast<std::streamoff>(std::filesystem::file_size(copy));
        if (damage == "data")
            flip_byte(copy, size / 2);
        else if (damage == "last")
            flip_byte(copy, size - 1);
        else if (damage == "header")
            flip_byte(copy, 20);
        else
            std::filesystem::resize_file(copy, damage == "cut" ? static_cast<uintmax_t>(size - 4096) : 0);
        QVERIFY(!load_copy(path, written, cache)); // ignored, and made again
        QVERIFY(load_copy(path, written, cache));
        QCOMPARE(cached_copies(cache.dir).size(), size_t{1});
    }

    void aChangedModelIsCopiedAgain() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("matrices.gguf").toStdString();
        const engine::RepackCacheOptions cache = cache_in(dir);
        QVERIFY(!load_copy(path, write_matrices(path, 1), cache));
        // Another file of the same size and metadata at the same path, later: new weights.
        const auto written_at = std::filesystem::last_write_time(path);
        const auto rewritten = write_matrices(path, 100);
        std::filesystem::last_write_time(path, written_at + std::chrono::seconds(1));
        QVERIFY(!load_copy(path, rewritten, cache));
        QVERIFY(load_copy(path, rewritten, cache));
    }

    void onlyTheMostRecentCopiesAreKept() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        engine::RepackCacheOptions cache = cache_in(dir);
        cache.keep_files = 2;
        std::vector<std::string> paths;
        for (int i = 0; i < 3; ++i) {
            paths.push_back(dir.filePath(QString("model%1.gguf").arg(i)).toStdString());
            QVERIFY(!load_copy(paths.back(), write_matrices(paths.back(), 1), cache));
        }
        QCOMPARE(cached_copies(cache.dir).size(), size_t{2});
    }

    // A temporary file of a copy whose process died is deleted by the next copy; one of a
    // process still running (this one) is not.
    void abandonedCopiesAreDeleted() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("matrices.gguf").toStdString();
        const engine::RepackCacheOptions cache = cache_in(dir);
        std::filesystem::create_directories(cache.dir);
        const std::filesystem::path abandoned = cache.dir / "0123456789abcdef.repacked.2147483646-0.tmp";
        const std::filesystem::path running =
            cache.dir / ("0123456789abcdef.repacked." + std::to_string(::getpid()) + "-0.tmp");
        std::ofstream(abandoned) << "half a copy";
        std::ofstream(running) << "half a copy";
        QVERIFY(!load_copy(path, write_matrices(path, 1), cache));
        QVERIFY(!std::filesystem::exists(abandoned));
        QVERIFY(std::filesystem::exists(running));
    }

    void smallCopiesAndNoFolderStayInMemory() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("matrices.gguf").toStdString();
        const auto written = write_matrices(path, 1);
        engine::RepackCacheOptions cache = cache_in(dir);
        cache.min_bytes = size_t{1} << 30;
        QVERIFY(!load_copy(path, written, cache));
        QVERIFY(!load_copy(path, written, cache));
        QVERIFY(!std::filesystem::exists(cache.dir));
        QVERIFY(!load_copy(path, written, engine::RepackCacheOptions{}));
    }
};

QTEST_APPLESS_MAIN(TestWeightRepacking)
#include "test_weight_repacking.moc"
