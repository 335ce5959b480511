// Fuzz target: the Markdown block splitter of the chat view (Qt Core). Besides not crashing,
// it must keep the promise the streaming view relies on: every block's start lies in the
// text, in order, and splitting again from a block's start gives the same blocks from there on.
#include "app/chat/markdown_blocks.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using hearth::app::MarkdownBlock;

void check_resplit(const QString& markdown, const QList<MarkdownBlock>& blocks,
                   const QList<qsizetype>& starts, qsizetype first) {
    const qsizetype start = starts[first];
    const QList<MarkdownBlock> again = hearth::app::splitMarkdownBlocks(markdown.mid(start));
    if (again != blocks.mid(first))
        hearth::fuzz::invariant_failed("splitting again from block " + std::to_string(first) + " (at " +
                                       std::to_string(start) + ") gives other blocks");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QString markdown =
        QString::fromUtf8(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    QList<qsizetype> starts;
    const QList<MarkdownBlock> blocks = hearth::app::splitMarkdownBlocks(markdown, &starts);
    if (starts.size() != blocks.size()) hearth::fuzz::invariant_failed("one start per block");
    for (qsizetype i = 0; i < starts.size(); ++i) {
        if (starts[i] < 0 || starts[i] > markdown.size())
            hearth::fuzz::invariant_failed("a start outside the text");
        if (i > 0 && starts[i] < starts[i - 1]) hearth::fuzz::invariant_failed("starts out of order");
        if (!blocks[i].closed && i + 1 != blocks.size())
            hearth::fuzz::invariant_failed("an open block before the last");
    }
    if (blocks.isEmpty()) return 0;
    // The last block (what streaming re-splits) and one in the middle, each from the first block
    // that shares its start.
    for (qsizetype i : {blocks.size() - 1, blocks.size() / 2}) {
        while (i > 0 && starts[i - 1] == starts[i])
            --i;
        check_resplit(markdown, blocks, starts, i);
    }
    return 0;
}
