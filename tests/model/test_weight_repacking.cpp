// The copy of the weights made at load (engine/model/weight_repacking.h), from a GGUF file this
// test writes: matrices of several MiB are copied in pieces, and every row must come back as the
// file has it, across the pieces' edges, in both layouts, and once for matrices that share data.
#include "engine/gguf/gguf_file.h"
#include "engine/gguf/gguf_writer.h"
#include "engine/model/weight_repacking.h"
#include "kernels/interleaved_rows.h"

#include <QTemporaryDir>
#include <QTest>
#include <cstring>
#include <random>
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
        repacked.repack(pointers, *file);
        QVERIFY(repacked.bytes() > 0);

        for (size_t i = 0; i < matrices.size(); ++i) {
            const WeightMatrix& m = matrices[i];
            const bool interleaved = kernels::interleaves_rows16(m.type, m.rows, m.cols);
            QCOMPARE(m.layout,
                     interleaved ? kernels::RowLayout::Interleaved16 : kernels::RowLayout::RowMajor);
            QVERIFY2(m.data != file->find_tensor(kShapes[i].name)->data, kShapes[i].name);
            QVERIFY2(rows_as_in_file(m) == written[i], kShapes[i].name);
        }
        QCOMPARE(tied.data, matrices[0].data); // one copy for both
        QCOMPARE(tied.layout, matrices[0].layout);
    }
};

QTEST_APPLESS_MAIN(TestWeightRepacking)
#include "test_weight_repacking.moc"
