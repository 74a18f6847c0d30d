// The Tensor files page: the dump's files by round and op as a scan brings them (the
// document's), the first round opened, and the picked file's header, attributes and path
// beside the tree. Where the program served several requests (llama-server's slots), each
// round names its requests and a chooser shows one request's rounds alone.
#pragma once
#include <QSplitter>

#include <vector>

#include "core/requests/requests.h"

class Cursor;
class DumpTreeModel;
class QComboBox;
class QLabel;
class QTextBrowser;
class QTreeView;
class SessionDocument;

class FilesPage : public QSplitter {
    Q_OBJECT
public:
    explicit FilesPage(QWidget *parent = nullptr);

    void follow(SessionDocument *doc);
    void follow(Cursor *cursor); // a tensor picked picks its op in its round: the inspector shows it
    void openRounds(); // every round's ops in view (a dump fully read)
    DumpTreeModel *model() const { return m_model; }
    QTreeView *tree() const { return m_tree; }
    QTextBrowser *details() const { return m_details; }
    QString whose() const; // whose dump the files are, with its folder
    // The requests its program served, to show one alone (item 0: every round); hidden when the
    // dump records one sequence only.
    QComboBox *requests() const { return m_requests; }

private:
    void showDetails();
    const std::vector<llmscope::Request> &requestsShown() const; // the document's, or none
    void listRequests(); // the document's requests in the chooser
    void showRequest(); // only the chosen request's rounds in the tree
    // Of the rounds' rows first..last, those of other requests hidden (reveal: the rest shown again).
    void hideRows(int first, int last, bool reveal = false);

    DumpTreeModel *m_model;
    QTreeView *m_tree;
    QTextBrowser *m_details;
    QLabel *m_whose;
    QComboBox *m_requests;
    SessionDocument *m_doc = nullptr;
    bool m_firstOpened = false; // this source's first round opened
};
