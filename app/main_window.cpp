#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QProgressBar>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTextBrowser>
#include <QTreeView>
#include <QtConcurrent>

#include <QCoroFuture>

#include "dump/dump_index.h"
#include "dump_tree_model.h"
#include "tensor/dtype.h"
#include "util/error.h"
#include "util/text.h"

using namespace llmscope;

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_model(new DumpTreeModel(this)), m_stack(new QStackedWidget(this)),
      m_placeholder(new QLabel(this)), m_tree(new QTreeView(this)), m_details(new QTextBrowser(this)),
      m_progress(new QProgressBar(this))
{
    setWindowTitle(tr("llmscope - LLM inference precision debugger"));
    resize(1200, 760);

    auto *file = menuBar()->addMenu(tr("&File"));
    auto *open = file->addAction(tr("&Open dump folder..."), this, &MainWindow::chooseDump);
    open->setShortcut(QKeySequence::Open);
    file->addSeparator();
    auto *quit = file->addAction(tr("&Quit"), qApp, &QApplication::quit);
    quit->setShortcut(QKeySequence::Quit);
    menuBar()->addMenu(tr("&Help"))->addAction(tr("&About llmscope"), this, &MainWindow::showAbout);

    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setWordWrap(true);
    m_placeholder->setText(tr("<h2>No dump open</h2><p>Open a dump folder written by llmscope or by "
                              "<code>msit llm dump</code> (File &gt; Open dump folder, Ctrl+O).</p>"));

    m_tree->setModel(m_model);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->setSectionResizeMode(DumpTreeModel::NameColumn, QHeaderView::Stretch);
    m_tree->header()->setStretchLastSection(false);
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, &MainWindow::showDetails);

    auto *split = new QSplitter(this);
    split->addWidget(m_tree);
    split->addWidget(m_details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    m_stack->addWidget(m_placeholder);
    m_stack->addWidget(split);
    setCentralWidget(m_stack);

    m_progress->setMaximumWidth(240);
    m_progress->hide();
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->showMessage(tr("Ready"));
}

QCoro::Task<bool> MainWindow::openDump(QString folder)
{
    QPointer<MainWindow> self(this);
    statusBar()->showMessage(tr("Scanning %1...").arg(folder));
    m_progress->setRange(0, 0);
    m_progress->show();
    auto report = [self](uint64_t done, uint64_t total) {
        QMetaObject::invokeMethod(qApp, [self, done, total] {
            if (self && total > 0) {
                self->m_progress->setRange(0, static_cast<int>(total));
                self->m_progress->setValue(static_cast<int>(done));
            }
        });
        return true;
    };
    const std::string path = folder.toStdString();
    auto future = QtConcurrent::run([path, report]() -> std::pair<DumpIndex, QString> {
        try {
            return {scanDump(path, report), QString()};
        } catch (const Error &e) {
            return {DumpIndex{}, QString::fromUtf8(e.what())};
        }
    });
    auto [index, error] = co_await future;
    if (!self)
        co_return false;
    m_progress->hide();
    if (!error.isEmpty()) {
        statusBar()->showMessage(tr("Could not open %1").arg(folder));
        if (m_stack->currentIndex() == 0)
            m_placeholder->setText(tr("<h2>Could not open the dump</h2><p>%1</p>").arg(error.toHtmlEscaped()));
        emit dumpFailed(folder, error);
        co_return false;
    }
    const int tensors = static_cast<int>(index.tensors.size());
    const int problems = static_cast<int>(index.problems.size());
    const int rounds = static_cast<int>(index.rounds().size());
    m_model->setIndex(std::move(index));
    m_tree->expandToDepth(0);
    m_stack->setCurrentIndex(1);
    setWindowTitle(tr("%1 - llmscope").arg(folder));
    statusBar()->showMessage(tr("%n tensor(s) in %1 round(s)", nullptr, tensors).arg(rounds) +
                             (problems ? tr("; %n file(s) could not be read", nullptr, problems) : QString()));
    emit dumpLoaded(folder, tensors);
    co_return true;
}

void MainWindow::chooseDump()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open dump folder"));
    if (dir.isEmpty())
        return;
    openDump(dir); // runs to completion on its own; results arrive through the signals
}

void MainWindow::showDetails()
{
    const QModelIndex cur = m_tree->currentIndex();
    const QString tip = m_model->data(cur.siblingAtColumn(0), Qt::ToolTipRole).toString();
    if (!cur.isValid() || tip.isEmpty()) {
        m_details->clear();
        return;
    }
    QString html = QStringLiteral("<h3>%1</h3><table>").arg(cur.siblingAtColumn(0).data().toString().toHtmlEscaped());
    for (int c = 1; c < DumpTreeModel::ColumnCount; ++c)
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                    .arg(m_model->headerData(c, Qt::Horizontal).toString(),
                         cur.siblingAtColumn(c).data().toString().toHtmlEscaped());
    html += QStringLiteral("</table><p><small>%1</small></p>").arg(tip.toHtmlEscaped());
    m_details->setHtml(html);
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About llmscope"),
                       tr("<b>llmscope %1</b><p>Finds the first operation where an accelerated LLM "
                          "inference departs from its reference. Reads and writes msit's dump format.</p>")
                           .arg(QStringLiteral(LLMSCOPE_VERSION)));
}
