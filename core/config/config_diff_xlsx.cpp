#include "core/config/config_diff_xlsx.h"

#include <xlsxwriter.h>

#include "core/util/error.h"

namespace llmscope {

void writeConfigDiffXlsx(const std::string &path, const ConfigDiff &d)
{
    lxw_workbook *book = workbook_new(path.c_str());
    if (!book)
        throw Error(path + ": cannot be created");
    lxw_worksheet *summary = workbook_add_worksheet(book, "summary");
    lxw_worksheet *details = workbook_add_worksheet(book, "differences");
    auto row = [](lxw_worksheet *sheet, lxw_row_t y, std::initializer_list<std::string> cells) {
        lxw_col_t x = 0;
        for (const std::string &c : cells)
            worksheet_write_string(sheet, y, x++, c.c_str(), nullptr);
    };
    row(summary, 0, {"group", "settings", "differ", "result"});
    lxw_row_t y = 1;
    for (const std::string &g : configGroups()) {
        size_t settings = 0, differ = 0;
        for (const ConfigItem &i : d.a.items)
            settings += i.group == g;
        for (const ConfigDifference &x : d.differences) {
            differ += x.group == g;
            settings += x.group == g && x.kind == ConfigDifference::Kind::OnlyB;
        }
        row(summary, y, {g, std::to_string(settings), std::to_string(differ), differ ? "differs" : "same"});
        ++y;
    }
    row(summary, y + 1, {"golden", d.a.source});
    row(summary, y + 2, {"test", d.b.source});
    row(summary, y + 3, {"summary", configDiffSummary(d)});
    row(details, 0, {"group", "setting", "golden", "test", "kind"});
    y = 1;
    for (const ConfigDifference &x : d.differences) {
        const char *kind = x.kind == ConfigDifference::Kind::Differs ? "differs"
            : x.kind == ConfigDifference::Kind::OnlyA                ? "only golden"
                                                                     : "only test";
        row(details, y++, {x.group, x.key, x.a, x.b, kind});
    }
    if (workbook_close(book) != LXW_NO_ERROR)
        throw Error(path + ": could not be written");
}

} // namespace llmscope
