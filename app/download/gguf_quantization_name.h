#pragma once
// The quantization a GGUF file's name announces ("qwen2.5-0.5b-instruct-q4_k_m.gguf"
// → "Q4_K_M"), by the naming llama.cpp's tools and the big uploaders use. Hugging
// Face lists files, not their headers: the name is all a search result has.
#include <QString>

namespace hearth::download {

// Upper-case ("Q4_K_M", "IQ3_XXS", "Q8_0", "F16", "BF16"), or empty when the name says none.
QString quantizationFromFileName(const QString& fileName);

} // namespace hearth::download
