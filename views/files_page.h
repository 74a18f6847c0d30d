// The Tensor files page: the dump's files by round and op as a scan brings them (the
// document's), the first round opened, and the picked file's header, attributes and path
// beside the tree.
#pragma once
#include <QSplitter>

class Cursor;
class DumpTreeModel;
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

private:
    void showDetails();

    DumpTreeModel *m_model;
    QTreeView *m_tree;
    QTextBrowser *m_details;
    QLabel *m_whose;
    bool m_firstOpened = false; // this source's first round opened
};
