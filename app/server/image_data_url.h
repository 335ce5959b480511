#pragma once
// Images sent inside a request as data URLs ("data:image/png;base64,…"), the only way the API
// server takes them: it never fetches a URL. The bytes are checked to be base64 of a PNG, JPEG or
// WebP file no larger than vision::kMaxImageFileBytes, by their declared type; the picture itself
// is decoded (and a damaged one named) when the model reads it.
#include <QString>
#include <cstdint>
#include <variant>
#include <vector>

namespace hearth::server {

struct DataUrlError {
    QString message; // a sentence for the client, naming what to send instead
    QString code;    // OpenAI's error code: "invalid_image_url", "invalid_image_format", ...
};

// The image file held by `url`, or why it cannot be one.
std::variant<std::vector<uint8_t>, DataUrlError> imageFromDataUrl(const QString& url);

} // namespace hearth::server
