#include "app/download/gguf_quantization_name.h"
#include <QRegularExpression>

namespace hearth::download {

QString quantizationFromFileName(const QString& fileName) {
    // A token between separators (or the name's edges): Q4_K_M, IQ2_XXS, TQ1_0,
    // Q4_0_4_4, F16, BF16, F32, MXFP4. The last one wins: names lead with the model
    // ("Q2.5-..." never matches: the digit must follow a Q directly and the token must end
    // at a separator).
    static const QRegularExpression token(
        QStringLiteral(
            "(?:^|[-._ ])((?:I?Q|TQ)[1-8](?:_[A-Z0-9]{1,3}){1,3}|Q[1-8]|BF16|F16|F32|MXFP4)(?=[-._ ]|$)"),
        QRegularExpression::CaseInsensitiveOption);
    QString stem = fileName.section(QLatin1Char('/'), -1);
    if (stem.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive)) stem.chop(5);
    QString found;
    for (auto it = token.globalMatch(stem); it.hasNext();)
        found = it.next().captured(1);
    return found.toUpper();
}

} // namespace hearth::download
