#pragma once
// Reads the header of a saved conversation state (.hkv) by the layout kv_state_file.h
// documents ("HKVS", version, model path, file size, header hash, template hash, n_layer,
// kv_width, n_ctx, format, from version 2 the cache's key and value types, token count, shift
// window, tokens, keys and values, checksum), so tests can tell which format the app saved
// without restoring it. The app's caches are F16, so the saved rows are those of `format`.
#include "engine/session/kv_state_file.h"
#include <QDataStream>
#include <QFile>
#include <optional>

namespace hearth::test {

struct SavedStateHeader {
    engine::KvStateFormat format = engine::KvStateFormat::F16;
    bool sizeMatchesFormat = false; // the file holds exactly the keys and values of that format
};

// nullopt when the file is missing or is not a saved state.
inline std::optional<SavedStateHeader> readSavedStateHeader(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return std::nullopt;
    QDataStream in(&file);
    in.setByteOrder(QDataStream::LittleEndian);
    char magic[4];
    quint32 version = 0, pathLength = 0;
    if (in.readRawData(magic, 4) != 4 || QByteArray(magic, 4) != "HKVS") return std::nullopt;
    in >> version >> pathLength;
    if (in.skipRawData(static_cast<int>(pathLength) + 3 * 8) < 0) return std::nullopt; // size and two hashes
    quint32 layers = 0, width = 0, context = 0, format = 0, keyType = 0, valueType = 0, tokens = 0,
            shiftAt = 0, dropped = 0;
    in >> layers >> width >> context >> format;
    if (version >= 2) in >> keyType >> valueType;
    in >> tokens >> shiftAt >> dropped;
    if (in.status() != QDataStream::Ok) return std::nullopt;
    // F16: 2 bytes a value; Q8_0: blocks of 32 values in 34 bytes (an F16 scale and 32 int8).
    const bool q8 = format == static_cast<quint32>(engine::KvStateFormat::Q8_0);
    const qint64 rowBytes = q8 ? qint64{width} / 32 * 34 : qint64{width} * 2;
    const qint64 typeFields = version >= 2 ? 2 : 0;
    const qint64 headerBytes =
        4 + 4 + 4 + qint64{pathLength} + 3 * 8 + (7 + typeFields) * 4 + 4 * (qint64{tokens} + dropped);
    const qint64 keysAndValues = 2 * qint64{layers} * tokens * rowBytes;
    return SavedStateHeader{static_cast<engine::KvStateFormat>(format),
                            file.size() == headerBytes + keysAndValues + 8 /* checksum */};
}

} // namespace hearth::test
