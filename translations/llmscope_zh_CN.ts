<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>CentralPages</name>
    <message>
        <source>Error by layer</source>
        <translation>逐层误差</translation>
    </message>
    <message>
        <source>Unpaired</source>
        <translation>未配对</translation>
    </message>
    <message>
        <source>Heatmap</source>
        <translation>热力图</translation>
    </message>
    <message>
        <source>Graph</source>
        <translation>计算图</translation>
    </message>
    <message>
        <source>Inspector</source>
        <translation>检查器</translation>
    </message>
    <message>
        <source>Diff</source>
        <translation>差异</translation>
    </message>
    <message>
        <source>Tensor files</source>
        <translation>张量文件</translation>
    </message>
    <message>
        <source>Replay (float64)</source>
        <translation>重放（float64）</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>Quantization</source>
        <translation>量化</translation>
    </message>
    <message>
        <source>Could not write %1 (is the disk full?)</source>
        <translation>无法写入 %1（磁盘已满？）</translation>
    </message>
    <message>
        <source>Spread</source>
        <translation>多次运行比对</translation>
    </message>
    <message>
        <source>The hunt failed:</source>
        <translation>定位失败：</translation>
    </message>
</context>
<context>
    <name>CompareController</name>
    <message>
        <source>comparison</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>comparison of the previous source stopped</source>
        <translation>已停止对上一个来源的比较</translation>
    </message>
    <message>
        <source>First divergent: %1</source>
        <translation>首个偏离：%1</translation>
    </message>
    <message>
        <source>Every operation passed</source>
        <translation>所有算子均通过</translation>
    </message>
    <message>
        <source>Comparing %1 with %2...</source>
        <translation>正在比较 %1 与 %2...</translation>
    </message>
    <message>
        <source>Comparing: %1</source>
        <translation>正在比较：%1</translation>
    </message>
    <message>
        <source>Nothing to export: compare two dumps first (Session &gt; Compare dumps, Ctrl+D).</source>
        <translation>没有可导出的内容：请先比较两个转储（会话 &gt; 比较转储，Ctrl+D）。</translation>
    </message>
    <message>
        <source>First divergent: %1 in %2</source>
        <translation>首个偏离：%2的 %1</translation>
    </message>
    <message>
        <source>cannot make a folder for the requests&apos; views: %1</source>
        <translation>无法为请求视图创建文件夹：%1</translation>
    </message>
    <message>
        <source>Cutting the chosen requests out of %1 and %2...</source>
        <translation>正在从 %1 和 %2 中取出所选请求...</translation>
    </message>
    <message>
        <source>Requests cut out</source>
        <translation>已取出请求</translation>
    </message>
</context>
<context>
    <name>CompareDialog</name>
    <message>
        <source>Compare a golden dump with a test dump</source>
        <translation>比较标杆转储与待测转储</translation>
    </message>
    <message>
        <source>...</source>
        <translation>...</translation>
    </message>
    <message>
        <source>Dump folder</source>
        <translation>转储目录</translation>
    </message>
    <message>
        <source>&amp;Golden (reference):</source>
        <translation>标杆（参考）(&amp;G)：</translation>
    </message>
    <message>
        <source>&amp;Test:</source>
        <translation>待测(&amp;T)：</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>The whole dump</source>
        <translation>整个转储</translation>
    </message>
    <message>
        <source>Golden&apos;s request:</source>
        <translation>标杆的请求：</translation>
    </message>
    <message>
        <source>Test&apos;s request:</source>
        <translation>待测的请求：</translation>
    </message>
    <message>
        <source>The program served several requests (llama-server&apos;s slots): compare one of them, its rows cut out of the rounds it shared with others</source>
        <translation>程序处理了多个请求（llama-server 的槽位）：比较其中一个，从与其他请求共享的轮次中取出它自己的行</translation>
    </message>
</context>
<context>
    <name>ComparedFiles</name>
    <message>
        <source>%1, round %2</source>
        <translation>%1，第 %2 轮</translation>
    </message>
</context>
<context>
    <name>ConfigWords</name>
    <message>
        <source>environment</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <source>libraries</source>
        <translation>库</translation>
    </message>
    <message>
        <source>hardware</source>
        <translation>硬件</translation>
    </message>
    <message>
        <source>run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>model files</source>
        <translation>模型文件</translation>
    </message>
    <message numerus="yes">
        <source>the same in both runs (%n setting(s) compared)</source>
        <translation>
            <numerusform>两次运行相同（比较了 %n 项设置）</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 %2 (%3)</source>
        <translation>%1 %2（%3）</translation>
    </message>
    <message>
        <source>%1 of %2 settings differ: %3</source>
        <translation>%2 项设置中有 %1 项不同：%3</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>machine</source>
        <translation>机器</translation>
    </message>
    <message>
        <source>CPU backend features</source>
        <translation>CPU 后端特性</translation>
    </message>
    <message>
        <source>command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>working folder</source>
        <translation>工作目录</translation>
    </message>
    <message>
        <source>CPU threads</source>
        <translation>CPU 线程数</translation>
    </message>
    <message>
        <source>backends that computed</source>
        <translation>参与计算的后端</translation>
    </message>
    <message>
        <source>fusion kept (--keep-fusion)</source>
        <translation>保留融合（--keep-fusion）</translation>
    </message>
    <message>
        <source>flash attention</source>
        <translation>flash attention</translation>
    </message>
    <message>
        <source>KV cache cells</source>
        <translation>KV 缓存单元数</translation>
    </message>
    <message>
        <source>KV cache streams</source>
        <translation>KV 缓存流数</translation>
    </message>
    <message>
        <source>KV cache K type</source>
        <translation>KV 缓存 K 类型</translation>
    </message>
    <message>
        <source>KV cache V type</source>
        <translation>KV 缓存 V 类型</translation>
    </message>
    <message>
        <source>most tokens in a round</source>
        <translation>单轮最多 token 数</translation>
    </message>
    <message>
        <source>size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>digest</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>tensor types</source>
        <translation>张量类型</translation>
    </message>
    <message>
        <source>model %1</source>
        <translation>模型 %1</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>device %1</source>
        <translation>设备 %1</translation>
    </message>
    <message>
        <source>prompt tokens (round %1)</source>
        <translation>提示词 token 数（第 %1 轮）</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>sampling</source>
        <translation>采样</translation>
    </message>
    <message>
        <source>sampler %1</source>
        <translation>采样器 %1</translation>
    </message>
    <message>
        <source>driver %1</source>
        <translation>驱动 %1</translation>
    </message>
</context>
<context>
    <name>ConsoleView</name>
    <message>
        <source>The program&apos;s output appears here while it runs.</source>
        <translation>程序运行时的输出显示在这里。</translation>
    </message>
</context>
<context>
    <name>CountersView</name>
    <message>
        <source>State:</source>
        <translation>状态：</translation>
    </message>
    <message>
        <source>Process:</source>
        <translation>进程：</translation>
    </message>
    <message>
        <source>Dump folder:</source>
        <translation>转储目录：</translation>
    </message>
    <message>
        <source>Rounds:</source>
        <translation>轮次：</translation>
    </message>
    <message>
        <source>Operations:</source>
        <translation>算子：</translation>
    </message>
    <message>
        <source>Written:</source>
        <translation>已写入：</translation>
    </message>
    <message>
        <source>Last round:</source>
        <translation>最近一轮：</translation>
    </message>
    <message>
        <source>no program running</source>
        <translation>没有正在运行的程序</translation>
    </message>
    <message>
        <source>%1 (pid %2), %3 on %4</source>
        <translation>%1（pid %2），%3，运行于 %4</translation>
    </message>
    <message>
        <source>%1 seen, %2 dumped</source>
        <translation>已见 %1，已转储 %2</translation>
    </message>
    <message>
        <source>%1 tensors, %2</source>
        <translation>%1 个张量，%2</translation>
    </message>
    <message>
        <source> (%1 live messages left out; the dump on disk is complete)</source>
        <translation>（略去 %1 条实时消息；磁盘上的转储是完整的）</translation>
    </message>
    <message>
        <source>%1: dumped, %2 operations, read %3</source>
        <translation>%1：已转储，%2 个算子，读取方式：%3</translation>
    </message>
    <message>
        <source>%1: not dumped</source>
        <translation>%1：未转储</translation>
    </message>
    <message>
        <source>; %1 skipped: the disk is nearly full (msit keeps 2 GiB free), they are missing from the dump</source>
        <translation>；跳过 %1 个：磁盘将满（msit 保留 2 GiB 空闲），这些张量不在转储中</translation>
    </message>
    <message>
        <source>Rounds (a prompt, then one a generated token) the program computed, and how many of them were dumped (-er)</source>
        <translation>程序计算过的轮数（先是提示词，然后每生成一个 token 一轮），以及其中被转储的轮数（-er）</translation>
    </message>
    <message>
        <source>The operations of the program&apos;s graph, and the most of them any round dumped (-ids, with their children; every one when none is picked). Ids applied to a running program count from the round after: the last round&apos;s line says how many it dumped.</source>
        <translation>程序计算图中的算子数，以及任一轮转储过的最多算子数（-ids，含其子算子；未选择时为全部）。对运行中程序应用的 id 从下一轮起生效：最后一轮那一行给出它转储了多少个。</translation>
    </message>
    <message>
        <source>%1 in the graph, at most %2 dumped in a round</source>
        <translation>计算图中 %1 个，单轮最多转储 %2 个</translation>
    </message>
    <message>
        <source>no program running: the pages show a dump</source>
        <translation>没有正在运行的程序：各页显示的是一个转储</translation>
    </message>
    <message>
        <source>node by node</source>
        <translation>逐节点</translation>
    </message>
    <message>
        <source>after the whole graph</source>
        <translation>整个计算图之后</translation>
    </message>
    <message>
        <source>as each node is computed</source>
        <translation>每个节点计算时</translation>
    </message>
</context>
<context>
    <name>DiffTableModel</name>
    <message>
        <source>unreadable</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <source>FIRST DIVERGENT</source>
        <translation>首个偏离</translation>
    </message>
    <message>
        <source>passed</source>
        <translation>通过</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>未通过</translation>
    </message>
    <message>
        <source>its error comes in through the weight %1</source>
        <translation>其误差经由权重 %1 引入</translation>
    </message>
    <message>
        <source>Round</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Operation</source>
        <translation>算子</translation>
    </message>
    <message>
        <source>Output error</source>
        <translation>输出误差</translation>
    </message>
    <message>
        <source>Inherited</source>
        <translation>继承误差</translation>
    </message>
    <message>
        <source>Added itself</source>
        <translation>自身新增</translation>
    </message>
    <message>
        <source>Cosine</source>
        <translation>余弦相似度</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>adds NMSE %1 of the %2 its op type may add between two engines (%3 standard)</source>
        <translation>引入 NMSE %1，该算子类型在两个引擎之间最多允许 %2（%3 标准）</translation>
    </message>
    <message>
        <source>Of its budget</source>
        <translation>占预算</translation>
    </message>
    <message>
        <source>compared on statistics, which do not tell a cosine: compare the tensors for it</source>
        <translation>按统计信息比对，统计信息无法给出余弦相似度：请比对张量以得到它</translation>
    </message>
    <message>
        <source>estimated from the statistics (the two L2 norms and the sketches&apos; distance): compare the tensors for the exact figure</source>
        <translation>由统计信息估计（两侧 L2 范数与草图间距离）：请比对张量以得到精确值</translation>
    </message>
    <message>
        <source>%1 %2 (%3, fused)</source>
        <translation>%1 %2（%3，融合）</translation>
    </message>
    <message>
        <source>golden and test</source>
        <translation>标杆和待测</translation>
    </message>
    <message>
        <source>golden</source>
        <translation>标杆</translation>
    </message>
    <message>
        <source>test</source>
        <translation>待测</translation>
    </message>
    <message>
        <source>%1 computed these ops as one fused kernel (%2): %3. Only the last one&apos;s output reached memory; the chain is judged by the budgets of all its ops. Dump without --keep-fusion to see inside it.</source>
        <translation>%1 将这些算子作为一个融合内核计算（%2）：%3。只有最后一个算子的输出写入了内存；该算子链按其所有算子的预算之和评判。不加 --keep-fusion 导出即可看到链内各算子。</translation>
    </message>
    <message>
        <source>adds NMSE %1 of the %2 float rounding in another order may change here (%3 standard)</source>
        <translation>引入 NMSE %1，此处换一种求和顺序的浮点舍入最多可改变 %2（%3 标准）</translation>
    </message>
    <message>
        <source>adds NMSE %1 where the same run must add %2 (%3 standard)</source>
        <translation>引入 NMSE %1，而同一次运行只允许 %2（%3 标准）</translation>
    </message>
</context>
<context>
    <name>DiffView</name>
    <message>
        <source>failures only</source>
        <translation>仅显示未通过</translation>
    </message>
    <message>
        <source>Filter operations by name, type or id</source>
        <translation>按名称、类型或 id 过滤算子</translation>
    </message>
    <message>
        <source>golden: %1
test: %2</source>
        <translation>标杆：%1
待测：%2</translation>
    </message>
    <message>
        <source>&lt;b&gt;Cause:&lt;/b&gt; %1.</source>
        <translation>&lt;b&gt;原因：&lt;/b&gt;%1。</translation>
    </message>
    <message>
        <source>Every operation passed.</source>
        <translation>所有算子均通过。</translation>
    </message>
    <message>
        <source>%1 tensor pairs (%2), %3 passed, %4 failed; %5 only in golden, %6 only in test.</source>
        <translation>%1 对张量（%2），%3 对通过，%4 对未通过；%5 个仅在标杆中，%6 个仅在待测中。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; against &lt;b&gt;%2&lt;/b&gt;</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; 对比 &lt;b&gt;%2&lt;/b&gt;</translation>
    </message>
    <message>
        <source>&lt;b style=&quot;color:#b3261e&quot;&gt;%1&lt;/b&gt; %2&lt;br&gt;No comparison is shown: an earlier one would read as this one&apos;s verdict.</source>
        <translation>&lt;b style=&quot;color:#b3261e&quot;&gt;%1&lt;/b&gt; %2&lt;br&gt;不显示任何对比结果：之前的结果会被误当作这次的结论。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Standard&lt;/b&gt; %1.</source>
        <translation>&lt;b&gt;标准&lt;/b&gt; %1。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Configuration&lt;/b&gt; %1 (llmscope config-diff; the summary&apos;s tooltip lists them).</source>
        <translation>&lt;b&gt;配置&lt;/b&gt; %1（llmscope config-diff；摘要的提示中逐项列出）。</translation>
    </message>
    <message>
        <source>round %1</source>
        <translation>第 %1 轮</translation>
    </message>
    <message>
        <source>round %1, %2</source>
        <translation>第 %1 轮，%2</translation>
    </message>
    <message>
        <source>First divergent: &lt;b&gt;%1&lt;/b&gt; in %2 (the first operation compared).</source>
        <translation>首个偏离：%2的 &lt;b&gt;%1&lt;/b&gt;（比对的第一个算子）。</translation>
    </message>
    <message>
        <source>First divergent: &lt;b&gt;%1&lt;/b&gt; in %2 (the %3 operations before it passed).</source>
        <translation>首个偏离：%2的 &lt;b&gt;%1&lt;/b&gt;（其前 %3 个算子均通过）。</translation>
    </message>
    <message>
        <source>Hunt for the first divergent operation of two programs (Session &gt; Hunt, Ctrl+H), or compare a golden dump with a test dump (Session &gt; Compare dumps, Ctrl+D).</source>
        <translation>定位两个程序的首个偏离算子（会话 &gt; 定位，Ctrl+H），或比较标杆转储与待测转储（会话 &gt; 比较转储，Ctrl+D）。</translation>
    </message>
</context>
<context>
    <name>DumpTreeModel</name>
    <message>
        <source>Round %1</source>
        <translation>第 %1 轮</translation>
    </message>
    <message>
        <source>Operation / tensor</source>
        <translation>算子 / 张量</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>Max</source>
        <translation>最大值</translation>
    </message>
    <message>
        <source>Min</source>
        <translation>最小值</translation>
    </message>
    <message>
        <source>Mean</source>
        <translation>均值</translation>
    </message>
    <message>
        <source>L2 norm</source>
        <translation>L2 范数</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>%1-%2</source>
        <translation>%1-%2</translation>
    </message>
    <message numerus="yes">
        <source>Request %1: sequence %2, positions %3, %n token(s) in rounds %4</source>
        <translation>
            <numerusform>请求 %1：序列 %2，位置 %3，%n 个词元，位于第 %4 轮</numerusform>
        </translation>
    </message>
    <message>
        <source> (some shared with other sequences)</source>
        <translation>（部分轮与其他序列共享）</translation>
    </message>
    <message>
        <source>request %1 (sequence %2)</source>
        <translation>请求 %1（序列 %2）</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message numerus="yes">
        <source>Request %1: sequence %2, positions %3, %n token(s) in round %4</source>
        <translation>
            <numerusform>请求 %1：序列 %2，位置 %3，%n 个词元，位于第 %4 轮</numerusform>
        </translation>
    </message>
    <message>
        <source>not recorded</source>
        <translation>未记录</translation>
    </message>
</context>
<context>
    <name>ErrorCurveView</name>
    <message>
        <source>round %1</source>
        <translation>第 %1 轮</translation>
    </message>
    <message>
        <source>%1 of %2 rounds shown (the first divergent&apos;s round and the earliest others).</source>
        <translation>显示 %2 轮中的 %1 轮（首个偏离算子所在轮及最早的其他轮）。</translation>
    </message>
    <message>
        <source>error</source>
        <translation>误差</translation>
    </message>
    <message>
        <source>added</source>
        <translation>自身引入</translation>
    </message>
    <message>
        <source>Solid: the worst output relative error (log scale) of each layer&apos;s operations, layers by their top-level operation id (red: round %3, blue: the other rounds); dashed (added): the error they add themselves in round %3. It rises in %1 (id %2) in round %3. Click a point to pick that layer&apos;s worst operation. </source>
        <translation>实线：每层算子输出的最大相对误差（对数刻度），层按其顶层算子 id 排列（红色：第 %3 轮，蓝色：其他轮）；虚线（自身引入）：第 %3 轮算子自身引入的误差。误差在第 %3 轮的 %1（id %2）处上升。点击数据点可选中该层误差最大的算子。</translation>
    </message>
    <message>
        <source>Hunt (Session &gt; Hunt, Ctrl+H) or compare two dumps (Session &gt; Compare dumps, Ctrl+D) to see how the error grows layer by layer.</source>
        <translation>定位（会话 &gt; 定位，Ctrl+H）或比较两个转储（会话 &gt; 比较转储，Ctrl+D），查看误差如何逐层增长。</translation>
    </message>
</context>
<context>
    <name>FilesPage</name>
    <message>
        <source>The requests the program served (llama-server&apos;s slots): show one request&apos;s rounds alone</source>
        <translation>程序处理的请求（llama-server 的槽位）：只显示一个请求的轮次</translation>
    </message>
    <message>
        <source>Every round, every request</source>
        <translation>所有轮次，所有请求</translation>
    </message>
</context>
<context>
    <name>HeatmapModel</name>
    <message>
        <source>%1: no %2 in this layer</source>
        <translation>%1：该层没有 %2</translation>
    </message>
    <message>
        <source>%1 %2, round %3</source>
        <translation>%1 %2，第 %3 轮</translation>
    </message>
    <message>
        <source>
max %1, min %2, mean %3, L2 norm %4
NaN %5, Inf %6</source>
        <translation>
最大值 %1，最小值 %2，均值 %3，L2 范数 %4
NaN %5，Inf %6</translation>
    </message>
    <message>
        <source>
not dumped in this round</source>
        <translation>
本轮未转储</translation>
    </message>
    <message>
        <source>round %1</source>
        <translation>第 %1 轮</translation>
    </message>
    <message>
        <source>
the first divergent operation</source>
        <translation>
首个偏离的算子</translation>
    </message>
    <message>
        <source>
failed</source>
        <translation>
未通过</translation>
    </message>
    <message numerus="yes">
        <source>%1
%n node(s): %2</source>
        <translation>
            <numerusform>%1
%n 个节点：%2</numerusform>
        </translation>
    </message>
    <message>
        <source>
replayed on its own inputs: %1%2</source>
        <translation>
在其自身输入上重放：%1%2</translation>
    </message>
    <message>
        <source>
golden vs test, estimated from the statistics (max, min, mean, L2 norm; the Diff tab&apos;s element-by-element figures are exact):</source>
        <translation>
标杆对比待测，由统计量估计（最大值、最小值、均值、L2 范数；差异页中逐元素的数值才是精确的）：</translation>
    </message>
    <message>
        <source>
golden vs test, element by element:</source>
        <translation>
标杆对比待测，逐元素：</translation>
    </message>
    <message numerus="yes">
        <source>
spread over %n run(s): the largest distance between two is %1</source>
        <translation>
            <numerusform>
%n 次运行比对：任意两次之间的最大距离为 %1</numerusform>
        </translation>
    </message>
    <message>
        <source>; run %1 is the farthest</source>
        <translation>；运行 %1 离其他运行最远</translation>
    </message>
    <message>
        <source>
the runs part here: %1</source>
        <translation>
运行在此分离：%1</translation>
    </message>
    <message>
        <source>
bit-identical in every run</source>
        <translation>
每次运行逐位相同</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>
computed fused as %1 by %2: %3; only %4&apos;s output reached memory, and these figures are the chain&apos;s</source>
        <translation>
%2 将其作为融合算子 %1 计算：%3；只有 %4 的输出写入内存，这些数值属于整条融合链</translation>
    </message>
    <message>
        <source> cosine %1, max relative error %2, relative euclidean %3, added by this op %4%5%6</source>
        <translation> 余弦 %1，最大相对误差 %2，相对欧氏距离 %3，该算子自身引入 %4%5%6</translation>
    </message>
    <message>
        <source>, %1 of its budget</source>
        <translation>，为其预算的 %1</translation>
    </message>
</context>
<context>
    <name>HeatmapView</name>
    <message>
        <source>newest</source>
        <translation>最新</translation>
    </message>
    <message>
        <source>max |x|</source>
        <translation>最大 |x|</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>均值</translation>
    </message>
    <message>
        <source>L2 norm</source>
        <translation>L2 范数</translation>
    </message>
    <message>
        <source>NaN/Inf count</source>
        <translation>NaN/Inf 个数</translation>
    </message>
    <message>
        <source>change from the previous round</source>
        <translation>相对上一轮的变化</translation>
    </message>
    <message>
        <source>linear</source>
        <translation>线性</translation>
    </message>
    <message>
        <source>log</source>
        <translation>对数</translation>
    </message>
    <message>
        <source>Show the newest round as the program computes</source>
        <translation>程序计算时显示最新一轮</translation>
    </message>
    <message>
        <source>Rows: layers; columns: operations by node name; colour: the statistic chosen above. &apos;!&apos; marks an output with NaN or Inf. Click a cell to pick the operation.</source>
        <translation>行：层；列：按节点名排列的算子；颜色：上方选择的统计量。“!”表示输出含 NaN 或 Inf。点击单元格选中该算子。</translation>
    </message>
    <message>
        <source>Statistic:</source>
        <translation>统计量：</translation>
    </message>
    <message>
        <source>Scale:</source>
        <translation>刻度：</translation>
    </message>
    <message>
        <source>Round:</source>
        <translation>轮次：</translation>
    </message>
    <message>
        <source>The heatmap fills as the program&apos;s dumped rounds bring statistics (--type stats, or tensors), or from an opened dump&apos;s statistics.</source>
        <translation>热力图随程序转储轮次带来的统计量（--type stats 或 tensor）逐步填充，也可来自已打开转储中的统计量。</translation>
    </message>
    <message>
        <source>layers x operations</source>
        <translation>层 x 算子</translation>
    </message>
    <message>
        <source>rounds x layers, one operation</source>
        <translation>轮次 x 层（单个算子）</translation>
    </message>
    <message>
        <source>no threshold</source>
        <translation>无阈值</translation>
    </message>
    <message>
        <source>Cells whose value is above it are flagged red; 0: no threshold</source>
        <translation>数值高于它的单元格标为红色；0：无阈值</translation>
    </message>
    <message>
        <source>View:</source>
        <translation>视图：</translation>
    </message>
    <message>
        <source>Flag above:</source>
        <translation>标记高于：</translation>
    </message>
    <message>
        <source>diverging (around 0)</source>
        <translation>发散（以 0 为中心）</translation>
    </message>
    <message>
        <source>diff: error added by the op itself</source>
        <translation>比对：算子自身引入的误差</translation>
    </message>
    <message>
        <source>diff: relative euclidean distance</source>
        <translation>比对：相对欧氏距离</translation>
    </message>
    <message>
        <source>diff: max relative error</source>
        <translation>比对：最大相对误差</translation>
    </message>
    <message>
        <source>diff: 1 - cosine</source>
        <translation>比对：1 - 余弦</translation>
    </message>
    <message>
        <source>replay: largest error over its bound (above 1: beyond it)</source>
        <translation>重放：最大误差与误差界之比（大于 1：超出）</translation>
    </message>
    <message>
        <source>spread: largest distance between two runs (red: runs part)</source>
        <translation>多次运行比对：两次运行之间的最大距离（红色：运行分离）</translation>
    </message>
    <message>
        <source>within their standard</source>
        <translation>在标准之内</translation>
    </message>
    <message>
        <source>passed</source>
        <translation>通过</translation>
    </message>
    <message>
        <source>runs part</source>
        <translation>运行分道</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>未通过</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>first departure</source>
        <translation>首个分道</translation>
    </message>
    <message>
        <source>first divergent</source>
        <translation>首个偏离</translation>
    </message>
    <message>
        <source>diff: error it adds / its budget</source>
        <translation>比对：自身引入误差 / 其预算</translation>
    </message>
    <message>
        <source>The error each op adds itself as a share of what its op type may add (ggml&apos;s budgets, the engine standard): above 1 it fails. Ops after a failed one are pale when they add nothing of their own, though their inputs carry its error</source>
        <translation>每个算子自身引入的误差占其算子类型允许误差的比例（ggml 的预算，引擎标准）：大于 1 即不通过。失败算子之后的算子若自身不引入误差则颜色很浅，尽管其输入带有该误差</translation>
    </message>
    <message>
        <source>Each cell: how far the runs part at that op, against its standard. Blue: within it; red: beyond it; ◆ the first op where they part</source>
        <translation>每个单元格：各次运行在该算子处相差多少（相对其标准）。蓝色：在标准内；红色：超出标准；◆ 首个出现差异的算子</translation>
    </message>
    <message>
        <source>Each cell: the error the op adds itself (%1). Blue: within its budget, darker as it nears it; red: beyond it (the op fails); ◆ the first divergent op. An op after a failed one stays pale when it adds no error of its own: its inputs carry the error (the Diff page&apos;s Input error)</source>
        <translation>每个单元格：算子自身引入的误差（%1）。蓝色：在预算内，越接近预算颜色越深；红色：超出预算（算子不通过）；◆ 首个偏离算子。失败算子之后的算子若自身不引入误差则保持浅色：误差来自其输入（见比对页的“输入误差”）</translation>
    </message>
    <message>
        <source>The colour of a cell: %1, from the lowest to the highest value shown</source>
        <translation>单元格颜色：%1，从所示最小值到最大值</translation>
    </message>
</context>
<context>
    <name>HelpMenu</name>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Getting started</source>
        <translation>入门(&amp;G)</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>&amp;About llmscope</source>
        <translation>关于 llmscope(&amp;A)</translation>
    </message>
    <message>
        <source>Getting started</source>
        <translation>入门</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>快捷键</translation>
    </message>
    <message>
        <source>About llmscope</source>
        <translation>关于 llmscope</translation>
    </message>
    <message>
        <source>&lt;b&gt;llmscope %1&lt;/b&gt;&lt;p&gt;Finds the first operation where an accelerated LLM inference departs from its reference. Reads and writes msit&apos;s dump format.&lt;/p&gt;</source>
        <translation>&lt;b&gt;llmscope %1&lt;/b&gt;&lt;p&gt;找出加速的大模型推理中第一个偏离参考结果的算子。读写 msit 的转储格式。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Find the first operation that goes wrong&lt;/h3&gt;&lt;ol&gt;&lt;li&gt;&lt;b&gt;Two runs that should agree&lt;/b&gt; (the CPU and a GPU backend, F32 and a quantized model): Session &amp;gt; Hunt (Ctrl+H) runs both, compares every operation and opens the first that departs, its weight named when that is where the difference comes in.&lt;/li&gt;&lt;li&gt;&lt;b&gt;One program that should give the same numbers every time&lt;/b&gt; (run to run, with more threads, another batch size or device): Session &amp;gt; Spread (Ctrl+Shift+P) runs it several ways and names the first operation where the runs part, and the run that departs.&lt;/li&gt;&lt;li&gt;&lt;b&gt;Two dumps you already have&lt;/b&gt;: Session &amp;gt; Compare dumps (Ctrl+D). The Diff tab lists each operation&apos;s verdict; the heatmap shows failed operations in red (✗) and passed ones in blue, the first divergent marked ◆.&lt;/li&gt;&lt;li&gt;&lt;b&gt;Is it the kernel or its inputs?&lt;/b&gt; Open a dump made with &lt;code&gt;--type tensor -tiling&lt;/code&gt; and Session &amp;gt; Replay operations (Ctrl+Shift+O): each operation is computed again in float64 from its own dumped inputs.&lt;/li&gt;&lt;li&gt;&lt;b&gt;A running program&lt;/b&gt;: Session &amp;gt; Launch (Ctrl+L); its operations fill the tree on the left; check some and Apply (Ctrl+Return) to dump them from its next round on.&lt;/li&gt;&lt;/ol&gt;&lt;p&gt;Search the tree (Ctrl+F) by id, name, type or weight name. Every shortcut: Help &amp;gt; Keyboard shortcuts.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;找出第一个出错的算子&lt;/h3&gt;&lt;ol&gt;&lt;li&gt;&lt;b&gt;两次本应一致的运行&lt;/b&gt;（CPU 与 GPU 后端，F32 与量化模型）：会话 &amp;gt; 定位（Ctrl+H）运行两者，比较每个算子，并打开第一个偏离的算子；若差异经由权重引入，会给出权重名。&lt;/li&gt;&lt;li&gt;&lt;b&gt;同一个程序每次都应给出相同的数值&lt;/b&gt;（多次运行之间、更多线程、另一种批大小或设备）：会话 &amp;gt; 多次运行比对（Ctrl+Shift+P）以多种方式运行它，给出各次运行首个分道的算子，以及偏离的那次运行。&lt;/li&gt;&lt;li&gt;&lt;b&gt;已有的两个转储&lt;/b&gt;：会话 &amp;gt; 比较转储（Ctrl+D）。差异页列出每个算子的结论；热力图中未通过的算子为红色（✗），通过的为蓝色，首个偏离标记为 ◆。&lt;/li&gt;&lt;li&gt;&lt;b&gt;是内核的问题还是输入的问题？&lt;/b&gt;打开用 &lt;code&gt;--type tensor -tiling&lt;/code&gt; 转储的目录，然后选择会话 &amp;gt; 重放算子（Ctrl+Shift+O）：每个算子都会在其自身转储的输入上以 float64 重新计算。&lt;/li&gt;&lt;li&gt;&lt;b&gt;正在运行的程序&lt;/b&gt;：会话 &amp;gt; 启动（Ctrl+L）；其算子会填入左侧的树；勾选一些并应用（Ctrl+Return），程序从下一轮起转储它们。&lt;/li&gt;&lt;/ol&gt;&lt;p&gt;可在树中按 id、名称、类型或权重名搜索（Ctrl+F）。全部快捷键见：帮助 &amp;gt; 快捷键。&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>HuntAction</name>
    <message>
        <source>[hunt] %1</source>
        <translation>[定位] %1</translation>
    </message>
</context>
<context>
    <name>HuntDialog</name>
    <message>
        <source>Hunt the first divergent operation</source>
        <translation>定位首个偏离的算子</translation>
    </message>
    <message>
        <source>a program&apos;s command line, or llmscope dump --exec &quot;...&quot;</source>
        <translation>程序的命令行，或 llmscope dump --exec &quot;...&quot;</translation>
    </message>
    <message>
        <source>preset %1: %2</source>
        <translation>预设 %1: %2</translation>
    </message>
    <message>
        <source>...</source>
        <translation>...</translation>
    </message>
    <message>
        <source>Folder for the hunt&apos;s dumps</source>
        <translation>定位所用转储的文件夹</translation>
    </message>
    <message>
        <source>Runs both programs with statistics of every operation, finds the first operation whose output departs, runs both again dumping only that operation&apos;s tensors, and opens the element-by-element diff there.</source>
        <translation>以全部算子的统计信息运行两个程序，找出首个输出偏离的算子，再次运行两者并只转储该算子的张量，然后在该处打开逐元素比对。</translation>
    </message>
    <message>
        <source>&amp;Golden (reference):</source>
        <translation>标杆（参考）(&amp;G)：</translation>
    </message>
    <message>
        <source>&amp;Test:</source>
        <translation>待测(&amp;T)：</translation>
    </message>
    <message>
        <source>&amp;Rounds:</source>
        <translation>轮次(&amp;R)：</translation>
    </message>
    <message>
        <source>&amp;Dumps into:</source>
        <translation>转储到(&amp;D)：</translation>
    </message>
    <message>
        <source>Hunt</source>
        <translation>定位</translation>
    </message>
    <message>
        <source>the %1 command is empty</source>
        <translation>%1 命令为空</translation>
    </message>
    <message>
        <source>the %1 command cannot be read: %2</source>
        <translation>无法解析%1命令：%2</translation>
    </message>
    <message>
        <source>golden</source>
        <translation>标杆</translation>
    </message>
    <message>
        <source>test</source>
        <translation>待测</translation>
    </message>
    <message>
        <source>rounds: %1</source>
        <translation>轮次：%1</translation>
    </message>
    <message>
        <source>choose a folder for the dumps</source>
        <translation>请选择转储文件夹</translation>
    </message>
    <message>
        <source>Quantization report</source>
        <translation>量化报告</translation>
    </message>
    <message>
        <source>The rounds whose logits and activations are compared (msit&apos;s -er): 0,15 is the prompt and 15 tokens</source>
        <translation>比较其 logits 与激活的轮次（msit 的 -er）：0,15 为提示词及其后 15 个 token</translation>
    </message>
    <message>
        <source>Extra bytes allowed for the weights kept higher, as a share of the test&apos;s weight bytes</source>
        <translation>保留更高精度的权重所允许的额外字节，以待测模型权重字节数的比例表示</translation>
    </message>
    <message>
        <source>Runs the golden program (the F32 or F16 model) and the test (the same program on the quantized model, fed golden&apos;s tokens), compares every operation and the logits, and ranks the weights by what keeping each in a higher type would gain per byte; tensor-types.txt in the folder keeps the best within the budget.</source>
        <translation>运行标杆程序（F32 或 F16 模型）与待测程序（同一程序运行量化模型，输入标杆的 token），比较每个算子与 logits，并按每字节收益对权重排序（即把该权重保留为更高精度类型可减少的误差）；文件夹中的 tensor-types.txt 在预算内保留收益最高的权重。</translation>
    </message>
    <message>
        <source>Size &amp;budget:</source>
        <translation>大小预算(&amp;B)：</translation>
    </message>
    <message>
        <source>Make the report</source>
        <translation>生成报告</translation>
    </message>
    <message>
        <source>budget: &apos;%1&apos; is not a share such as 10% or 0.1</source>
        <translation>预算：&apos;%1&apos; 不是 10% 或 0.1 这样的比例</translation>
    </message>
    <message>
        <source>The rounds to compare (msit&apos;s -er): all is every round both programs run, the test consuming golden&apos;s tokens; 0,0 is the prompt alone</source>
        <translation>要比对的轮次（msit 的 -er）：all 表示两个程序运行的每一轮，测试端使用标杆的 token；0,0 仅为提示词轮</translation>
    </message>
    <message>
        <source>NAME=value ... for both programs, e.g. OMP_NUM_THREADS=4</source>
        <translation>NAME=value ……两个程序都用，例如 OMP_NUM_THREADS=4</translation>
    </message>
    <message>
        <source>Settings for both programs. A command line may also begin with its own, as in a shell: GGML_VK_VISIBLE_DEVICES=0 ./llama-simple ... (those win).</source>
        <translation>两个程序共用的环境变量。命令行也可以像在 shell 中一样以自己的设置开头：GGML_VK_VISIBLE_DEVICES=0 ./llama-simple ……（以命令行的为准）。</translation>
    </message>
    <message>
        <source>E&amp;nvironment:</source>
        <translation>环境变量(&amp;N)：</translation>
    </message>
    <message>
        <source>environment: %1</source>
        <translation>环境变量：%1</translation>
    </message>
    <message>
        <source>the %1 command cannot run: %2</source>
        <translation>%1 命令无法运行：%2</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
</context>
<context>
    <name>HuntRunnerText</name>
    <message>
        <source>; see %1</source>
        <translation>；见 %1</translation>
    </message>
    <message>
        <source>dumps and reports kept in %1</source>
        <translation>转储与报告保存在 %1</translation>
    </message>
    <message>
        <source>cancelled; the dumps written so far are kept in %1</source>
        <translation>已取消；已写出的转储保存在 %1</translation>
    </message>
    <message>
        <source>stopped: %1</source>
        <translation>已停止：%1</translation>
    </message>
    <message>
        <source>stopped: an unexpected error</source>
        <translation>已停止：意外错误</translation>
    </message>
    <message>
        <source>configuration: %1 (llmscope config-diff %2 %3 lists each)</source>
        <translation>配置：%1（llmscope config-diff %2 %3 逐项列出）</translation>
    </message>
    <message>
        <source>the test&apos;s probe said: %1</source>
        <translation>测试侧探针提示：%1</translation>
    </message>
</context>
<context>
    <name>HuntText</name>
    <message>
        <source>step 2 of 4: comparing the statistics to find the first operation whose output departs</source>
        <translation>第 2/4 步：比较统计信息，找出首个输出偏离的算子</translation>
    </message>
    <message>
        <source>step 3 of 4: both runs again, dumping only op %1 in round %2, its inputs before and outputs after, with their data</source>
        <translation>第 3/4 步：再次运行两者，只转储第 %2 轮的算子 %1 执行前的输入与执行后的输出，含数据</translation>
    </message>
    <message>
        <source>step 4 of 4: comparing its tensors element by element</source>
        <translation>第 4/4 步：逐元素比较其张量</translation>
    </message>
    <message>
        <source>the second runs did not dump op %1</source>
        <translation>第二次运行没有转储算子 %1</translation>
    </message>
    <message>
        <source>found: round %1, op %2 in %3
  output cosine %4, relative error %5 % (inputs %6 %, added %7 %)</source>
        <translation>找到：第 %1 轮，算子 %2，位于 %3
  输出余弦 %4，相对误差 %5 %（输入 %6 %，自身引入 %7 %）</translation>
    </message>
    <message>
        <source>first divergent by statistics: round %1, op %2 (relative error at least %3 %)</source>
        <translation>按统计信息首个偏离：第 %1 轮，算子 %2（相对误差至少 %3 %）</translation>
    </message>
    <message>
        <source>%1 (test&apos;s %2)</source>
        <translation>%1（测试侧为 %2）</translation>
    </message>
    <message>
        <source>  the most error for its budget: round %1, op %2 adds NMSE %3 by its statistics, %4 % of the %5 allowed for %6</source>
        <translation>  相对预算引入误差最多的：第 %1 轮，算子 %2 按统计信息引入 NMSE %3，占 %6 允许的 %5 的 %4 %</translation>
    </message>
    <message>
        <source>  within its budget: it adds NMSE %1, %2 % of the %3 allowed for %4</source>
        <translation>  在预算之内：它引入 NMSE %1，占 %4 允许的 %3 的 %2 %</translation>
    </message>
    <message>
        <source>first divergent by statistics: round %1, op %2 (statistics differ by %3 %)</source>
        <translation>按统计信息首个偏离：第 %1 轮，算子 %2（统计信息相差 %3 %）</translation>
    </message>
    <message>
        <source>first divergent: round %1, op %2 (relative error %3 %)</source>
        <translation>首个发散：第 %1 轮，算子 %2（相对误差 %3 %）</translation>
    </message>
    <message>
        <source>    %1 (%2, relative error %3 %): its op %4 adds NMSE %5</source>
        <translation>    %1（%2，相对误差 %3 %）：其算子 %4 增加 NMSE %5</translation>
    </message>
    <message>
        <source>replay: not replayed (%1)</source>
        <translation>重放：未重放（%1）</translation>
    </message>
    <message>
        <source>replay: could not be read (%1)</source>
        <translation>重放：无法读取（%1）</translation>
    </message>
    <message>
        <source>replay: on the inputs it was given, the test&apos;s kernel is wrong: %1 (llmscope opcheck)</source>
        <translation>重放：在其实际输入上，测试侧的算子内核有误：%1（llmscope opcheck）</translation>
    </message>
    <message>
        <source>replay: on the inputs it was given, the test&apos;s kernel is within its bound (%1)</source>
        <translation>重放：在其实际输入上，测试侧的算子内核在误差界内（%1）</translation>
    </message>
    <message>
        <source>: its error comes in through %1, which differs from golden&apos;s</source>
        <translation>：其误差来自 %1，它与标杆不同</translation>
    </message>
    <message>
        <source>: its inputs already differ from golden&apos;s by %1 %, and its error comes from them</source>
        <translation>：其输入已与标杆相差 %1 %，误差来自输入</translation>
    </message>
    <message>
        <source>step 3 of 4: both runs again, dumping round %1 whole with its data (a PyTorch golden: a module&apos;s input lies in another of the engine&apos;s ops)</source>
        <translation>第 3 步（共 4 步）：再次运行两端，完整导出第 %1 轮及其数据（PyTorch 标杆：模块的输入位于引擎的其他算子中）</translation>
    </message>
    <message>
        <source>first divergent by statistics: round %1, op %2 (relative error about %3 %, estimated from the sketches)</source>
        <translation>按统计信息首个偏离：第 %1 轮，算子 %2（相对误差约 %3 %，由误差草图估计）</translation>
    </message>
    <message>
        <source>element by element it is within its budget</source>
        <translation>逐元素比对时它在预算之内</translation>
    </message>
    <message>
        <source>its inputs already differ from golden&apos;s by %1 %, more than any one op may add</source>
        <translation>其输入与标杆已相差 %1 %，超过任何单个算子可引入的误差</translation>
    </message>
    <message>
        <source>step 3 of 4, walking back from op %1 (%2): both runs again, dumping every operation&apos;s outputs in round %3 with their data</source>
        <translation>第 3 步（共 4 步），从算子 %1 回溯（%2）：再次运行两端，导出第 %3 轮每个算子的输出及其数据</translation>
    </message>
    <message>
        <source>step 4 of 4, walking back: comparing them element by element for the first operation that departs</source>
        <translation>第 4 步（共 4 步），回溯：逐元素比对，找出首个偏离的算子</translation>
    </message>
    <message>
        <source>the first operation that departs element by element: round %1, op %2; dumping it with its inputs</source>
        <translation>逐元素比对首个偏离的算子：第 %1 轮，算子 %2；连同其输入一起导出</translation>
    </message>
    <message>
        <source>no operation departs beyond its budget in %1, yet the two programs chose different tokens from round %2 on: the difference lies in what was not compared (widen -er, or compare the logits element by element with llmscope compare)</source>
        <translation>%1 中没有算子超出其预算，但两个程序从第 %2 轮起选择了不同的 token：差异位于未比对的部分（扩大 -er，或用 llmscope compare 逐元素比对 logits）</translation>
    </message>
    <message>
        <source>step 1 of 4: statistics of every operation in %1, golden and test, the test consuming golden&apos;s tokens (cheap: a few numbers a tensor, no payload)</source>
        <translation>第 1 步（共 4 步）：导出%1中每个算子的统计信息，标杆与测试两端，测试端使用标杆的 token（开销小：每个张量几个数，无数据）</translation>
    </message>
    <message>
        <source>the test&apos;s weights are stored as %1: statistics cannot tell a kernel&apos;s error from quantization&apos;s, so every operation&apos;s outputs in %2 are dumped and compared element by element, golden and test</source>
        <translation>测试端权重以 %1 存储：统计信息无法区分内核误差与量化误差，因此导出%2中每个算子的输出并逐元素比对，标杆与测试两端</translation>
    </message>
    <message>
        <source>every operation&apos;s statistics agree in %1: nothing diverges there</source>
        <translation>%1中每个算子的统计信息一致：没有偏离</translation>
    </message>
    <message>
        <source>no kernel adds error beyond what quantization explains in %1; the weights whose quantization costs most (llmscope quant-report ranks them all):%2</source>
        <translation>%1中没有内核引入超出量化可解释范围的误差；量化代价最大的权重（llmscope quant-report 给出完整排名）：%2</translation>
    </message>
    <message>
        <source>element by element, op %1 is within its budget on the inputs it was given: what departs comes in through an input no operation of round %2 computes (a weight, the program&apos;s input, or the KV cache an earlier round wrote); see its inputs in the report</source>
        <translation>逐元素比对，算子 %1 在其所得输入上处于预算之内：偏离来自第 %2 轮中没有算子计算的输入（权重、程序的输入，或更早一轮写入的 KV 缓存）；请在报告中查看其输入</translation>
    </message>
    <message>
        <source>step 3 of 4: op %1 ends a chain the test computed fused (%2): both runs again, dumping every operation&apos;s outputs in round %3 with their data as the programs ran, fusion kept</source>
        <translation>第 3 步（共 4 步）：算子 %1 是测试侧融合计算的算子链（%2）的末端：两侧再次运行，保留融合，按程序实际运行的方式导出第 %3 轮每个算子的输出及其数据</translation>
    </message>
    <message>
        <source>checking that observing changed nothing: the test once more with the probe loaded but reading nothing, its tokens and results held against the observed run&apos;s</source>
        <translation>检查观测是否改变了结果：再次运行测试侧，加载探针但不读取任何张量，将其 token 与结果同被观测的运行逐轮对照</translation>
    </message>
    <message>
        <source>no operation departs beyond its budget as observed, but %1: the fault lies where observing changes what runs (a kernel the probe keeps from running, such as a fused chain it reads inside, or a graph it splits); compare the two runs&apos; logits with llmscope compare</source>
        <translation>在被观测的运行中没有算子超出其预算，但%1：问题出在观测改变了实际运行内容的地方（探针使其未能运行的内核，例如被读取内部结果的融合算子链，或被拆分的计算图）；请用 llmscope compare 比对两次运行的 logits</translation>
    </message>
    <message>
        <source>found: round %1, the fused chain %2 (%3), computed fused on %4: its end departs (relative error %5 %, inputs %6 %)</source>
        <translation>找到：第 %1 轮，融合算子链 %2（%3），在 %4 上融合计算：其末端偏离（相对误差 %5 %，输入 %6 %）</translation>
    </message>
    <message>
        <source>  computed op by op, with fusion off, the same ops agree with golden&apos;s (relative error %1 %): the fused kernel is wrong</source>
        <translation>  关闭融合逐个算子计算时，这些算子与标杆一致（相对误差 %1 %）：融合内核有误</translation>
    </message>
    <message>
        <source>  computed op by op, with fusion off, the same ops agree with golden&apos;s: the fused kernel is wrong</source>
        <translation>  关闭融合逐个算子计算时，这些算子与标杆一致：融合内核有误</translation>
    </message>
    <message>
        <source>following the state back: what departs in op %1 comes in through the KV cache %2, which earlier writes filled; both runs again, dumping every write into it in rounds 0-%3 with the whole cache after each</source>
        <translation>沿状态回溯：算子 %1 的偏离来自 KV 缓存 %2，它由更早的写入填充；两边再运行一次，转储第 0-%3 轮中对它的每次写入，以及每次写入后的整个缓存</translation>
    </message>
    <message>
        <source>the cache departs first after round %1&apos;s write, op %2: it is compared and replayed there</source>
        <translation>缓存在第 %1 轮的写入（算子 %2）之后首先偏离：在那里比较并重放它</translation>
    </message>
    <message>
        <source>element by element, op %1 is within its budget on the inputs it was given, and every write into the KV cache %2 it reads left the cache within budget up to round %3: what departs comes in another way (see its inputs in the report)</source>
        <translation>逐元素看，算子 %1 在其所得输入上处于预算之内，而它读取的 KV 缓存 %2 的每次写入直到第 %3 轮都使缓存保持在预算之内：偏离来自别处（见报告中它的输入）</translation>
    </message>
    <message>
        <source>op %1 stores in the KV cache the rows it was given within its budget, and those already depart: hunt round %2 alone (-er %2,%2) for the operation that computed them</source>
        <translation>算子 %1 把所得的行按预算存入 KV 缓存，而这些行本身已经偏离：单独定位第 %2 轮（-er %2,%2），找出计算它们的算子</translation>
    </message>
    <message>
        <source>round %1</source>
        <translation>第 %1 轮</translation>
    </message>
    <message>
        <source>rounds %1-%2</source>
        <translation>第 %1-%2 轮</translation>
    </message>
    <message>
        <source>before any write</source>
        <translation>在任何写入之前</translation>
    </message>
    <message>
        <source>after round %1&apos;s write</source>
        <translation>在第 %1 轮的写入之后</translation>
    </message>
    <message>
        <source>the KV cache %1 was %2 % off %3 and %4 % off when round %5 wrote into it: %6 changed it without a write (a context shift&apos;s re-rotation, a defragmentation or a sequence copy: graphs of their own); both runs again, dumping all of it with the KV cache</source>
        <translation>KV 缓存 %1 %3 偏离 %2 %，而第 %5 轮写入它时已偏离 %4 %：%6 在没有写入的情况下改变了它（上下文平移的重新旋转、碎片整理或序列复制：它们各自是独立的计算图）；两边再运行一次，连同 KV 缓存整体转储</translation>
    </message>
    <message>
        <source>the KV cache %1 changed between round %2&apos;s write and round %3&apos;s without a write the probe reads (the same round&apos;s other ops, or the program&apos;s own copy into it): not followed further</source>
        <translation>KV 缓存 %1 在第 %2 轮与第 %3 轮的写入之间发生了变化，而探针读不到这次写入（同一轮中的其他算子，或程序自己向它的复制）：不再继续追踪</translation>
    </message>
    <message>
        <source>the KV cache %1 changed in %2 without a write, and nothing computed there departs as dumped: the cache changed where the probe does not read (see the report)</source>
        <translation>KV 缓存 %1 在 %2 中没有写入却发生了变化，且那里按转储计算的内容都没有偏离：缓存在探针读不到的地方被改变（见报告）</translation>
    </message>
    <message>
        <source>element by element, op %1 is within its budget on the inputs it was given, and no write into the KV cache %2 it reads was found in rounds 0-%3 (see the report): not followed further</source>
        <translation>逐元素看，算子 %1 在其所得输入上处于预算之内，而在第 0-%3 轮中没有找到对它读取的 KV 缓存 %2 的写入（见报告）：不再继续追踪</translation>
    </message>
    <message>
        <source>standard %1</source>
        <translation>标准 %1</translation>
    </message>
    <message>
        <source>every operation is within its budget in %1: nothing diverges beyond what %2</source>
        <translation>%1中每个算子都在其预算之内：没有超出%2的偏离</translation>
    </message>
    <message>
        <source>the same run must differ by</source>
        <translation>同一次运行允许的差异</translation>
    </message>
    <message>
        <source>float rounding in another order may change</source>
        <translation>换一种求和顺序的浮点舍入可能带来的差异</translation>
    </message>
    <message>
        <source>two engines of one model may differ by</source>
        <translation>同一模型两个引擎之间可能的差异</translation>
    </message>
    <message>
        <source>element by element, op %1 is within its budget: the statistics overstated it, and no operation&apos;s outputs in round %2 depart beyond what %3</source>
        <translation>逐元素比对，算子 %1 在其预算之内：统计信息高估了它，且第 %2 轮中没有算子的输出超出%3</translation>
    </message>
    <message>
        <source>before round %1</source>
        <translation>第 %1 轮之前</translation>
    </message>
    <message>
        <source>before round %1 (stream %2 -&gt; %3)</source>
        <translation>第 %1 轮之前（流 %2 -&gt; %3）</translation>
    </message>
    <message>
        <source>neither run copied into the KV cache %1 outside any graph in %2 (the probe notes and checks llama.cpp&apos;s copies between cache streams)</source>
        <translation>两次运行在%2中都没有在计算图之外向 KV 缓存 %1 复制（探针会记录并核对 llama.cpp 在缓存流之间的复制）</translation>
    </message>
    <message>
        <source>both runs copied into the KV cache %1 outside any graph in %2 alike, each copy equal to its source: what they copied already departed</source>
        <translation>两次运行在%2中都在计算图之外向 KV 缓存 %1 做了相同的复制，每次复制都与源一致：被复制的内容此前已经偏离</translation>
    </message>
    <message>
        <source>found: the test program&apos;s copy into the KV cache %1 %2, made outside any graph (a sequence copied between parallel slots&apos; cache streams, or a saved state restored), left %3 of its %4 rows unlike their source (the first: row %5): the copy is wrong, not a kernel</source>
        <translation>找到：待测程序%2在任何计算图之外向 KV 缓存 %1 做的复制（在并行槽位的缓存流之间复制序列，或恢复已保存的状态），其 %4 行中有 %3 行与源不同（第一行：第 %5 行）：错的是这次复制，而不是内核</translation>
    </message>
    <message>
        <source>found: golden&apos;s run copied the KV cache %1 %2 outside any graph (a sequence copied between parallel slots&apos; cache streams, or a saved state restored), and test&apos;s run made no such copy: the program&apos;s own bookkeeping of its sequences (llama.cpp&apos;s KV cache), not a kernel, left the cache behind</source>
        <translation>找到：标杆运行%2在任何计算图之外复制了 KV 缓存 %1（在并行槽位的缓存流之间复制序列，或恢复已保存的状态），而待测运行没有做这次复制：是程序自身对序列的管理（llama.cpp 的 KV 缓存），而不是内核，漏掉了这部分缓存</translation>
    </message>
    <message>
        <source>found: test&apos;s run copied into the KV cache %1 %2 outside any graph (a sequence copied between parallel slots&apos; cache streams, or a saved state restored), and golden&apos;s run made no such copy: the program&apos;s own bookkeeping of its sequences (llama.cpp&apos;s KV cache), not a kernel, changed the cache</source>
        <translation>找到：待测运行%2在任何计算图之外向 KV 缓存 %1 做了复制（在并行槽位的缓存流之间复制序列，或恢复已保存的状态），而标杆运行没有做这次复制：是程序自身对序列的管理（llama.cpp 的 KV 缓存），而不是内核，改变了缓存</translation>
    </message>
    <message>
        <source>a run made more copies into its KV cache outside any graph than the probe notes: what copies in %1 did to the KV cache %2 is not known</source>
        <translation>有一次运行在计算图之外向其 KV 缓存做的复制多于探针记录的上限：无法得知%1中的复制对 KV 缓存 %2 做了什么</translation>
    </message>
    <message>
        <source>both runs copied into the KV cache %1 outside any graph in %2 alike, and not every copy could be held against its source (see each dump&apos;s status, state_copies)</source>
        <translation>两次运行在%2中都在计算图之外向 KV 缓存 %1 做了相同的复制，但并非每次复制都能与其源核对（见各转储状态文件中的 state_copies）</translation>
    </message>
    <message>
        <source>%1, llama.cpp&apos;s %2</source>
        <translation>%1，即 llama.cpp 的%2</translation>
    </message>
    <message>
        <source>step 3 of 4: every operation within its budget; the test&apos;s matrix products in %1 again, with their inputs, each replayed on what it was given: a budget for quantized weights may hide a kernel&apos;s fault, the reference of what the kernel computes does not</source>
        <translation>第 3/4 步：每个算子都在其预算之内；再次转储待测方在%1中的矩阵乘积及其输入，并在其实际输入上逐一重放：量化权重的预算可能掩盖内核的错误，而内核所算内容的参考值不会</translation>
    </message>
    <message numerus="yes">
        <source>replay: each of the test&apos;s %n matrix product(s) is within its bound on the inputs it was given</source>
        <translation>
            <numerusform>重放：待测方的 %n 个矩阵乘积在其实际输入上均在界限之内</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> (%n not replayed: llmscope opcheck on %1 says why)</source>
        <translation>
            <numerusform>（%n 个未重放：对 %1 运行 llmscope opcheck 可查看原因）</numerusform>
        </translation>
    </message>
    <message>
        <source>a matrix product within ggml&apos;s budget for this pair is wrong on its own inputs: its kernel, not the quantization, adds the error</source>
        <translation>一个在 ggml 对此配对的预算之内的矩阵乘积在其自身输入上是错误的：误差来自其内核，而非量化</translation>
    </message>
    <message>
        <source>replay: the test&apos;s matrix products could not be replayed (%1): what follows rests on ggml&apos;s budgets alone</source>
        <translation>重放：待测方的矩阵乘积无法重放（%1）：以下结论仅依据 ggml 的预算</translation>
    </message>
    <message>
        <source>replay: none of the test&apos;s matrix products could be replayed (llmscope opcheck on %1 says why): what follows rests on ggml&apos;s budgets alone</source>
        <translation>重放：待测方的矩阵乘积均无法重放（对 %1 运行 llmscope opcheck 可查看原因）：以下结论仅依据 ggml 的预算</translation>
    </message>
    <message>
        <source>%1, computed on %2</source>
        <translation>%1，在 %2 上计算</translation>
    </message>
</context>
<context>
    <name>JobBar</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancel the %1</source>
        <translation>取消%1</translation>
    </message>
    <message>
        <source>%1: step %2 of %3</source>
        <translation>%1：第 %2/%3 步</translation>
    </message>
    <message>
        <source>%1: %p%</source>
        <translation>%1: %p%</translation>
    </message>
</context>
<context>
    <name>LanguageMenu</name>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>System (%1)</source>
        <translation>跟随系统（%1）</translation>
    </message>
</context>
<context>
    <name>LaunchDialog</name>
    <message>
        <source>descriptions only (-sd)</source>
        <translation>仅描述（-sd）</translation>
    </message>
    <message>
        <source>with children (-child)</source>
        <translation>包含子算子（-child）</translation>
    </message>
    <message>
        <source>KV cache too (--kv-cache)</source>
        <translation>同时转储 KV 缓存（--kv-cache）</translation>
    </message>
    <message>
        <source>one statistic.csv per round (--stats-csv)</source>
        <translation>每轮一个 statistic.csv（--stats-csv）</translation>
    </message>
    <message>
        <source>payload and statistics in one file (--stats-with-data)</source>
        <translation>数据与统计量写在同一文件（--stats-with-data）</translation>
    </message>
    <message>
        <source>probe child processes (--children)</source>
        <translation>也探测子进程（--children）</translation>
    </message>
    <message>
        <source>Launch a program under the probe</source>
        <translation>在探针下启动程序</translation>
    </message>
    <message>
        <source>Program</source>
        <translation>程序</translation>
    </message>
    <message>
        <source>e.g. ./llama-cli -m model.gguf -p &quot;Hello&quot; -n 64</source>
        <translation>例如 ./llama-cli -m model.gguf -p &quot;Hello&quot; -n 64</translation>
    </message>
    <message>
        <source>...</source>
        <translation>...</translation>
    </message>
    <message>
        <source>Choose the program</source>
        <translation>选择程序</translation>
    </message>
    <message>
        <source>&amp;Command:</source>
        <translation>命令(&amp;C)：</translation>
    </message>
    <message>
        <source>&amp;Working folder:</source>
        <translation>工作目录(&amp;W)：</translation>
    </message>
    <message>
        <source>Variable</source>
        <translation>变量</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>&amp;Environment:</source>
        <translation>环境变量(&amp;E)：</translation>
    </message>
    <message>
        <source>What to dump (msit llm dump&apos;s options)</source>
        <translation>转储内容（msit llm dump 的选项）</translation>
    </message>
    <message>
        <source>--&amp;type:</source>
        <translation>--type(&amp;T)：</translation>
    </message>
    <message>
        <source>statistics only, with or without tensor (msit&apos;s way to save disk)</source>
        <translation>仅统计量，带或不带 tensor 均如此（msit 节省磁盘的方式）</translation>
    </message>
    <message>
        <source>every operation; e.g. 2_29,3</source>
        <translation>所有算子；例如 2_29,3</translation>
    </message>
    <message>
        <source>-&amp;ids:</source>
        <translation>-ids(&amp;I)：</translation>
    </message>
    <message>
        <source>rounds (graph computes) as inclusive pairs: 1,3 or 3,5,7,7</source>
        <translation>轮次（计算图执行次数），成对的闭区间：1,3 或 3,5,7,7</translation>
    </message>
    <message>
        <source>-e&amp;r:</source>
        <translation>-er(&amp;R)：</translation>
    </message>
    <message>
        <source>op types by prefix, e.g. mul_mat,rms</source>
        <translation>按前缀匹配算子类型，例如 mul_mat,rms</translation>
    </message>
    <message>
        <source>-op&amp;name:</source>
        <translation>-opname(&amp;N)：</translation>
    </message>
    <message>
        <source>0: before</source>
        <translation>0：执行前</translation>
    </message>
    <message>
        <source>1: after</source>
        <translation>1：执行后</translation>
    </message>
    <message>
        <source>2: both</source>
        <translation>2：前后都要</translation>
    </message>
    <message>
        <source>3: inputs before, outputs after</source>
        <translation>3：执行前的输入，执行后的输出</translation>
    </message>
    <message>
        <source>0: inputs</source>
        <translation>0：输入</translation>
    </message>
    <message>
        <source>1: outputs</source>
        <translation>1：输出</translation>
    </message>
    <message>
        <source>-time</source>
        <translation>-time</translation>
    </message>
    <message>
        <source>-stp</source>
        <translation>-stp</translation>
    </message>
    <message>
        <source>every device</source>
        <translation>所有设备</translation>
    </message>
    <message>
        <source>-&amp;device:</source>
        <translation>-device(&amp;D)：</translation>
    </message>
    <message>
        <source>-&amp;o (output folder):</source>
        <translation>-o 输出目录(&amp;O)：</translation>
    </message>
    <message>
        <source>msit&apos;s dynamic config JSON (optional)</source>
        <translation>msit 的动态配置 JSON（可选）</translation>
    </message>
    <message>
        <source>-&amp;config:</source>
        <translation>-config(&amp;G)：</translation>
    </message>
    <message>
        <source>-&amp;l (log level):</source>
        <translation>-l 日志级别(&amp;L)：</translation>
    </message>
    <message>
        <source>llmscope&apos;s own</source>
        <translation>llmscope 自有选项</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>--read</source>
        <translation>--read</translation>
    </message>
    <message>
        <source>--timeout</source>
        <translation>--timeout</translation>
    </message>
    <message>
        <source>Command line (edit or paste one to fill the dialog)</source>
        <translation>命令行（编辑或粘贴一条命令以填写本对话框）</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <source>(presets)</source>
        <translation>（预设）</translation>
    </message>
    <message>
        <source>Save preset...</source>
        <translation>保存预设...</translation>
    </message>
    <message>
        <source>Delete preset</source>
        <translation>删除预设</translation>
    </message>
    <message>
        <source>(recent launches)</source>
        <translation>（最近启动）</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>Program to run</source>
        <translation>要运行的程序</translation>
    </message>
    <message>
        <source>Working folder</source>
        <translation>工作目录</translation>
    </message>
    <message>
        <source>choose at least one --type</source>
        <translation>请至少选择一种 --type</translation>
    </message>
    <message>
        <source>give the program to run, e.g. ./llama-cli -m model.gguf</source>
        <translation>请给出要运行的程序，例如 ./llama-cli -m model.gguf</translation>
    </message>
    <message>
        <source>Save preset</source>
        <translation>保存预设</translation>
    </message>
    <message>
        <source>Preset name:</source>
        <translation>预设名称：</translation>
    </message>
    <message>
        <source>preset &apos;%1&apos; cannot be read: %2</source>
        <translation>无法读取预设“%1”：%2</translation>
    </message>
    <message>
        <source>-tiling (op parameters)</source>
        <translation>-tiling（算子参数）</translation>
    </message>
    <message>
        <source>operation_io_tensors: each dumped node&apos;s op, parameters, types, shapes and files</source>
        <translation>operation_io_tensors: 每个转储节点的算子、参数、类型、形状和文件</translation>
    </message>
    <message>
        <source>kernel_io_tensors: the same with the backend that ran each node (CPU, CUDA0, ...)</source>
        <translation>kernel_io_tensors: 同上，另含运行每个节点的后端（CPU、CUDA0 等）</translation>
    </message>
    <message>
        <source>each dumped node&apos;s parameters: op_param.json beside its tensors, raw bytes under tiling/</source>
        <translation>每个转储节点的参数：张量旁的 op_param.json，以及 tiling/ 下的原始字节</translation>
    </message>
    <message>
        <source>only ops with NaN/Inf outputs (--nan-inf-only)</source>
        <translation>只转储输出含 NaN/Inf 的算子（--nan-inf-only）</translation>
    </message>
    <message>
        <source>identical tensors as links (-symlink)</source>
        <translation>相同张量写为链接（-symlink）</translation>
    </message>
    <message>
        <source>a golden dump: the program consumes its recorded tokens (optional)</source>
        <translation>标杆转储：程序使用其中记录的 token（可选）</translation>
    </message>
    <message>
        <source>--follow-tokens: each round&apos;s token ids come from the golden dump, so the rounds stay comparable after the program&apos;s own choices diverge</source>
        <translation>--follow-tokens: 每轮的 token id 取自标杆转储，使程序自身选择偏离后各轮仍可比较</translation>
    </message>
    <message>
        <source>--&amp;follow-tokens:</source>
        <translation>--follow-tokens(&amp;F)：</translation>
    </message>
    <message>
        <source>cpu_profiling/: each selected node&apos;s host time per round (the round runs node by node: slower, the same results)</source>
        <translation>cpu_profiling/: 每轮每个所选节点的主机耗时（该轮逐节点运行：较慢，结果相同）</translation>
    </message>
    <message>
        <source>op ids whose outputs are re-read after every later node, e.g. 1_1 (optional)</source>
        <translation>在之后每个节点后重新读取其输出的算子 id，例如 1_1（可选）</translation>
    </message>
    <message>
        <source>--watch: records the first node after which a watched output changed (memory reused or written over too early)</source>
        <translation>--watch: 记录被监视的输出在哪个节点之后首次改变（内存被复用或过早被覆盖）</translation>
    </message>
    <message>
        <source>--&amp;watch:</source>
        <translation>--watch(&amp;W)：</translation>
    </message>
    <message>
        <source>onnx/: the topology as ONNX files (no weights) for Netron, written when the program ends</source>
        <translation>onnx/: 拓扑结构的 ONNX 文件（不含权重），可用 Netron 打开，在程序结束时写出</translation>
    </message>
    <message>
        <source>the current folder, %1</source>
        <translation>当前文件夹，%1</translation>
    </message>
    <message>
        <source>./, the working folder: %1</source>
        <translation>./，即工作文件夹：%1</translation>
    </message>
    <message>
        <source>keep ggml&apos;s fusion (--keep-fusion)</source>
        <translation>保留 ggml 的融合（--keep-fusion）</translation>
    </message>
    <message>
        <source>no fusion at all (--no-fusion)</source>
        <translation>完全不融合（--no-fusion）</translation>
    </message>
    <message>
        <source>Let the backends fuse as they do unobserved (RMS_NORM+MUL, ...) and read each fused chain at its last op: the ops inside a chain are not read, and the tree marks them &quot;fused&quot;. Without it every op is read and computed alone.</source>
        <translation>让后端像未被观察时一样融合（RMS_NORM+MUL 等），并在每条融合链的最后一个算子处读取：链内的算子不被读取，算子树将其标为“融合”。不选时每个算子都单独计算并被读取。</translation>
    </message>
    <message>
        <source>Turn the backends&apos; fusion off with their own switches (GGML_CPU_DISABLE_FUSION, GGML_VK_DISABLE_FUSION, GGML_CUDA_DISABLE_FUSION), as a user would to rule a fused kernel out.</source>
        <translation>用后端自己的开关（GGML_CPU_DISABLE_FUSION、GGML_VK_DISABLE_FUSION、GGML_CUDA_DISABLE_FUSION）关闭融合，就像用户排除融合内核时那样。</translation>
    </message>
</context>
<context>
    <name>LaunchHistory</name>
    <message>
        <source>expected &apos;llmscope dump --exec &quot;...&quot; [options]&apos;, optionally after NAME=value settings</source>
        <translation>应为 &apos;llmscope dump --exec &quot;...&quot; [选项]&apos;，前面可带 NAME=value 形式的设置</translation>
    </message>
</context>
<context>
    <name>LaunchPlan</name>
    <message>
        <source>cannot run &apos;%1&apos;: no such executable file</source>
        <translation>无法运行 &apos;%1&apos;：没有这个可执行文件</translation>
    </message>
    <message>
        <source>the probe library is missing (looked for %1); build the project (scripts/test or cmake --build) or set LLMSCOPE_PROBE_LIB</source>
        <translation>缺少探针库（查找位置 %1）；请构建项目（scripts/test 或 cmake --build），或设置 LLMSCOPE_PROBE_LIB</translation>
    </message>
    <message>
        <source>the working folder &apos;%1&apos; does not exist</source>
        <translation>工作目录 &apos;%1&apos; 不存在</translation>
    </message>
    <message>
        <source>-config &apos;%1&apos; is not a file</source>
        <translation>-config &apos;%1&apos; 不是文件</translation>
    </message>
    <message>
        <source>cannot run &apos;%1&apos;: not found in PATH; the one in the working folder runs as ./%1</source>
        <translation>无法运行“%1”：在 PATH 中找不到；要运行工作文件夹中的那个，请写 ./%1</translation>
    </message>
    <message>
        <source>cannot run &apos;%1&apos;: not found in PATH; give its path, such as ./%1 or /path/to/%1</source>
        <translation>无法运行“%1”：在 PATH 中找不到；请给出其路径，如 ./%1 或 /path/to/%1</translation>
    </message>
    <message>
        <source>no program to run</source>
        <translation>没有要运行的程序</translation>
    </message>
</context>
<context>
    <name>LayerGraphView</name>
    <message>
        <source>Graphviz could not start</source>
        <translation>Graphviz 无法启动</translation>
    </message>
    <message>
        <source>Graphviz&apos;s dot layout is not available (is the libgvc6 plugin configuration installed?)</source>
        <translation>Graphviz 的 dot 布局不可用（是否安装了 libgvc6 的插件配置？）</translation>
    </message>
    <message>
        <source>Boxes: the layer&apos;s operations, coloured as the heatmap; grey leaves: weights, KV cache and inputs from outside the layer. Click a box to pick it; Ctrl+wheel zooms.</source>
        <translation>方框：本层的算子，颜色与热力图一致；灰色叶子：权重、KV 缓存和来自层外的输入。点击方框选中算子；Ctrl+滚轮缩放。</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>适应窗口</translation>
    </message>
    <message>
        <source>Layer:</source>
        <translation>层：</translation>
    </message>
    <message>
        <source>A layer&apos;s operations appear here once a program runs or a dump is opened.</source>
        <translation>程序运行或打开转储后，这里显示一层的算子。</translation>
    </message>
    <message>
        <source>No operations in this layer.</source>
        <translation>该层没有算子。</translation>
    </message>
    <message>
        <source>%1 %2 (%3)</source>
        <translation>%1 %2 (%3)</translation>
    </message>
    <message>
        <source>weight %1</source>
        <translation>权重 %1</translation>
    </message>
    <message>
        <source>KV cache %1</source>
        <translation>KV 缓存 %1</translation>
    </message>
    <message>
        <source>input %1</source>
        <translation>输入 %1</translation>
    </message>
    <message>
        <source>%1, computed by %2 in another layer</source>
        <translation>%1，由其他层的 %2 计算</translation>
    </message>
    <message>
        <source>the first divergent operation&apos;s error comes in through it</source>
        <translation>首个偏离算子的误差经由它引入</translation>
    </message>
    <message>
        <source>%1 operations, %2 inputs from outside the layer, %3 edges. Colours: the heatmap&apos;s statistic in its round. Ctrl+wheel zooms, dragging moves.</source>
        <translation>%1 个算子，%2 个层外输入，%3 条边。颜色：热力图所选统计量在其当前轮的值。Ctrl+滚轮缩放，拖动可平移。</translation>
    </message>
    <message>
        <source>The whole layer in view</source>
        <translation>整层都在视图中</translation>
    </message>
    <message>
        <source>Readable boxes, as much of the layer as they leave in view</source>
        <translation>方框保持可读，视图中显示其所能容纳的部分</translation>
    </message>
    <message>
        <source>The whole layer in view, its boxes too small to read: an overview</source>
        <translation>在视图中显示整层，方框过小无法阅读：用作概览</translation>
    </message>
    <message>
        <source>Fit: whole layer</source>
        <translation>适应：整层</translation>
    </message>
</context>
<context>
    <name>LayerLabel</name>
    <message>
        <source>%1 (blk.%2)</source>
        <translation>%1（blk.%2）</translation>
    </message>
</context>
<context>
    <name>LayerWords</name>
    <message>
        <source>layer %1 (blk.%1)</source>
        <translation>第 %1 层（blk.%1）</translation>
    </message>
</context>
<context>
    <name>LiveController</name>
    <message>
        <source>[llmscope] probe connected: process %1 (%2 on %3)</source>
        <translation>[llmscope] 探针已连接：进程 %1（%2，运行于 %3）</translation>
    </message>
    <message>
        <source>[llmscope] warning: %1</source>
        <translation>[llmscope] 警告：%1</translation>
    </message>
    <message>
        <source>Waiting for the program&apos;s first graph...</source>
        <translation>等待程序的第一张计算图...</translation>
    </message>
    <message>
        <source>[llmscope] cannot launch: %1</source>
        <translation>[llmscope] 无法启动：%1</translation>
    </message>
    <message>
        <source>[llmscope] %1; dumping into %2</source>
        <translation>[llmscope] %1；转储到 %2</translation>
    </message>
    <message>
        <source>[llmscope] stopping the program</source>
        <translation>[llmscope] 正在停止程序</translation>
    </message>
    <message numerus="yes">
        <source>[llmscope] onnx: %n file(s) of the topology under onnx/</source>
        <translation>
            <numerusform>[llmscope] onnx: onnx/ 下 %n 个拓扑文件</numerusform>
        </translation>
    </message>
    <message>
        <source>every operation</source>
        <translation>所有算子</translation>
    </message>
    <message>
        <source>-ids %1</source>
        <translation>-ids %1</translation>
    </message>
    <message>
        <source>Cannot apply: %1</source>
        <translation>无法应用：%1</translation>
    </message>
    <message>
        <source>No probe is connected yet: the selection is sent once the program&apos;s probe talks.</source>
        <translation>尚无探针连接：程序的探针开始通信后才能发送选择。</translation>
    </message>
    <message>
        <source>Sent -ids %1; waiting for the program&apos;s next graph...</source>
        <translation>已发送 -ids %1；等待程序的下一张计算图...</translation>
    </message>
    <message>
        <source>(every operation)</source>
        <translation>（所有算子）</translation>
    </message>
    <message>
        <source>The program refused the selection: %1</source>
        <translation>程序拒绝了该选择：%1</translation>
    </message>
    <message>
        <source>Dumping %1 from round %2 on (acknowledged by the program).</source>
        <translation>从第 %2 轮起转储 %1（程序已确认）。</translation>
    </message>
    <message>
        <source>[llmscope] the program dumps %1 from round %2</source>
        <translation>[llmscope] 程序从第 %2 轮起转储 %1</translation>
    </message>
    <message>
        <source>The program could not start: nothing to select in (the console says why).</source>
        <translation>程序未能启动：没有可选择的算子（原因见控制台）。</translation>
    </message>
    <message numerus="yes">
        <source>%n operation(s) in the program&apos;s graph. It dumps %1 in %2 (the launch&apos;s -er); check operations and Apply to dump them from its next round on.</source>
        <translation>
            <numerusform>程序的图中有 %n 个算子。它在%2中转储%1（启动时的 -er）；勾选算子并点击“应用”，即从其下一轮起转储它们。</numerusform>
        </translation>
    </message>
    <message>
        <source>The program has ended. Check operations and press Run again with these to dump them in a new run.</source>
        <translation>程序已结束。勾选算子并点击“用这些再次运行”，在新的一次运行中转储它们。</translation>
    </message>
    <message>
        <source>The program has ended.</source>
        <translation>程序已结束。</translation>
    </message>
</context>
<context>
    <name>LiveSession</name>
    <message>
        <source>idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>启动中</translation>
    </message>
    <message>
        <source>connected</source>
        <translation>已连接</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已结束</translation>
    </message>
    <message>
        <source>crashed</source>
        <translation>已崩溃</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>failed to start</source>
        <translation>启动失败</translation>
    </message>
    <message>
        <source>a program is already running in this session; stop it first</source>
        <translation>本会话中已有程序在运行；请先停止它</translation>
    </message>
    <message>
        <source>cannot make a private folder for the live socket in %1: %2</source>
        <translation>无法在 %1 中为实时套接字创建私有目录：%2</translation>
    </message>
    <message>
        <source>cannot listen for the probe: %1</source>
        <translation>无法监听探针：%1</translation>
    </message>
    <message>
        <source>cannot start %1: %2</source>
        <translation>无法启动 %1：%2</translation>
    </message>
    <message>
        <source>starting %1</source>
        <translation>正在启动 %1</translation>
    </message>
    <message>
        <source>No probe has talked to llmscope %1 s after the start. The program may link llama.cpp statically (the probe can only interpose a shared libggml), may not be a ggml program, or may not have computed its first graph yet. It keeps running; Stop ends it.</source>
        <translation>启动 %1 秒后仍没有探针与 llmscope 通信。该程序可能静态链接了 llama.cpp（探针只能拦截共享的 libggml），可能不是 ggml 程序，或者尚未计算第一张计算图。程序继续运行；可用“停止”结束它。</translation>
    </message>
    <message>
        <source>refused a live connection from another user</source>
        <translation>已拒绝来自其他用户的实时连接</translation>
    </message>
    <message>
        <source>ignored a message from the probe: %1</source>
        <translation>已忽略探针发来的一条消息：%1</translation>
    </message>
    <message>
        <source>the probe sent a message too long to read; no longer listening to it</source>
        <translation>探针发来的消息过长，无法读取；不再接收其消息</translation>
    </message>
    <message>
        <source>the probe speaks live protocol %1 and this window %2: use the probe built with this llmscope (the dump goes on without the window)</source>
        <translation>探针使用实时协议 %1，本窗口使用 %2：请使用与此 llmscope 一同构建的探针（转储在没有窗口的情况下继续进行）</translation>
    </message>
    <message>
        <source>the probe in process %1 is connected</source>
        <translation>进程 %1 中的探针已连接</translation>
    </message>
    <message>
        <source>the program did not end %1 s after it was asked to; killing it</source>
        <translation>请求结束 %1 秒后程序仍未结束；正在强制终止</translation>
    </message>
    <message>
        <source> No probe talked to llmscope: the program may link llama.cpp statically (the probe can only interpose a shared libggml), may not be a ggml program, or ended before its first graph.</source>
        <translation> 没有探针与 llmscope 通信：该程序可能静态链接了 llama.cpp（探针只能拦截共享的 libggml），可能不是 ggml 程序，或在第一张计算图之前就已结束。</translation>
    </message>
    <message>
        <source>stopped after %1 s</source>
        <translation>%1 秒后已停止</translation>
    </message>
    <message>
        <source>the program crashed after %1 s (%2); the dump keeps every file written before it</source>
        <translation>程序在 %1 秒后崩溃（%2）；此前写入的文件都完整保留在转储中</translation>
    </message>
    <message>
        <source>the program exited with status %1 after %2 s</source>
        <translation>程序在 %2 秒后退出，状态码 %1</translation>
    </message>
    <message>
        <source>the program ran past --timeout %1 s; stopping it</source>
        <translation>程序运行超过 --timeout %1 秒；正在停止</translation>
    </message>
    <message>
        <source>: &quot;%1&quot; (its last error line)</source>
        <translation>：“%1”（它的最后一行错误输出）</translation>
    </message>
    <message>
        <source>. No probe talked to llmscope before it ended.</source>
        <translation>。它结束之前没有探针与 llmscope 通信。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>llmscope - LLM inference precision debugger</source>
        <translation>llmscope - 大模型推理精度调试器</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open dump folder...</source>
        <translation>打开转储目录(&amp;O)...</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>%1 - llmscope</source>
        <translation>%1 - llmscope</translation>
    </message>
    <message>
        <source>Open dump folder</source>
        <translation>打开转储目录</translation>
    </message>
    <message>
        <source>Operations</source>
        <translation>算子</translation>
    </message>
    <message>
        <source>Console</source>
        <translation>控制台</translation>
    </message>
    <message>
        <source>Session</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>Cannot launch: %1</source>
        <translation>无法启动：%1</translation>
    </message>
    <message>
        <source>&amp;Export diff report...</source>
        <translation>导出比对报告(&amp;E)...</translation>
    </message>
    <message>
        <source>The comparison&apos;s CSV and JSON reports and pictures of its views, in a folder</source>
        <translation>将比较的 CSV 与 JSON 报告及各视图的图片导出到文件夹</translation>
    </message>
    <message>
        <source>Export the diff report into</source>
        <translation>将比对报告导出到</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message numerus="yes">
        <source>Exported %n file(s) into %1</source>
        <translation>
            <numerusform>已导出 %n 个文件到 %1</numerusform>
        </translation>
    </message>
    <message>
        <source>The program is running</source>
        <translation>程序正在运行</translation>
    </message>
</context>
<context>
    <name>OpInspection</name>
    <message>
        <source>Nothing of this operation is in the dump yet: check it and Apply (a running program), or dump it with -ids %1.</source>
        <translation>转储中还没有该算子的内容：勾选它并应用（对正在运行的程序），或用 -ids %1 转储它。</translation>
    </message>
</context>
<context>
    <name>OpTreeModel</name>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>%1: dumped with its parent (-ids %2 with -child)</source>
        <translation>%1：随其父算子一起转储（-ids %2 且 -child）</translation>
    </message>
    <message>
        <source>%1: check to dump this operation (-ids %1)</source>
        <translation>%1：勾选以转储此算子（-ids %1）</translation>
    </message>
    <message>
        <source>from round %1</source>
        <translation>自第 %1 轮</translation>
    </message>
    <message>
        <source>Op id</source>
        <translation>算子 id</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Output shape</source>
        <translation>输出形状</translation>
    </message>
    <message>
        <source>DType</source>
        <translation>数据类型</translation>
    </message>
    <message>
        <source>Max</source>
        <translation>最大值</translation>
    </message>
    <message>
        <source>Min</source>
        <translation>最小值</translation>
    </message>
    <message>
        <source>Mean</source>
        <translation>均值</translation>
    </message>
    <message>
        <source>L2 norm</source>
        <translation>L2 范数</translation>
    </message>
    <message>
        <source>Dumped</source>
        <translation>已转储</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>round %1: %2</source>
        <translation>第 %1 轮：%2</translation>
    </message>
    <message>
        <source>Replay</source>
        <translation>重放</translation>
    </message>
    <message>
        <source>%1
reads %2</source>
        <translation>%1
读取 %2</translation>
    </message>
    <message>
        <source>computed fused as %1 by %2 (round %3): %4; only %5&apos;s output reached memory</source>
        <translation>%2 将其作为融合算子 %1 计算（第 %3 轮）：%4；只有 %5 的输出写入内存</translation>
    </message>
    <message>
        <source>%1, fused</source>
        <translation>%1，已融合</translation>
    </message>
    <message>
        <source>fused</source>
        <translation>融合</translation>
    </message>
    <message>
        <source>Operation group %1 is llama.cpp&apos;s layer %2: its operations are %1_0, %1_1, ..., its nodes&apos; names end in -%2 and its weights are blk.%2.*</source>
        <translation>算子组 %1 即 llama.cpp 的第 %2 层：其算子为 %1_0、%1_1、……，其节点名以 -%2 结尾，其权重为 blk.%2.*</translation>
    </message>
    <message>
        <source>computed fused as %1 by %2; only %3&apos;s output reaches memory</source>
        <translation>由 %2 融合为 %1 计算；只有 %3 的输出写入内存</translation>
    </message>
    <message>
        <source>its backend</source>
        <translation>其后端</translation>
    </message>
    <message>
        <source>computed fused as %1 by %2, which writes its output too; read with %3&apos;s</source>
        <translation>由 %2 融合为 %1 计算，其输出也写入内存；与 %3 的输出一同读取</translation>
    </message>
</context>
<context>
    <name>OpTreePanel</name>
    <message>
        <source>&amp;Apply</source>
        <translation>应用(&amp;A)</translation>
    </message>
    <message>
        <source>msit&apos;s -ids: operation ids joined by commas. A layer&apos;s id dumps the layer with its children. Typing here checks the boxes; checking boxes writes here.</source>
        <translation>msit 的 -ids：用逗号连接的算子 id。层的 id 会转储该层及其子算子。在此输入会勾选复选框；勾选复选框会写到这里。</translation>
    </message>
    <message>
        <source>Send this selection to the running program: it dumps these operations from its next graph on (Ctrl+Return)</source>
        <translation>把此选择发送给正在运行的程序：它从下一张计算图起转储这些算子（Ctrl+Return）</translation>
    </message>
    <message>
        <source>-ids</source>
        <translation>-ids</translation>
    </message>
    <message>
        <source>Launch a program (Session &gt; Launch) to apply a selection while it runs</source>
        <translation>先启动程序（会话 &gt; 启动），才能在其运行时应用选择</translation>
    </message>
    <message>
        <source>Search by name, type, id or weight (Ctrl+F)</source>
        <translation>按名称、类型、id 或权重搜索（Ctrl+F）</translation>
    </message>
    <message>
        <source>No operation&apos;s id, name, type or weight contains &quot;%1&quot;.</source>
        <translation>没有算子的 id、名称、类型或权重包含“%1”。</translation>
    </message>
    <message>
        <source>&amp;Run again with these</source>
        <translation>用这些再次运行(&amp;R)</translation>
    </message>
    <message>
        <source>every op; tick boxes or type 2_29,3</source>
        <translation>全部算子；勾选或输入 2_29,3</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>Cannot hunt: %1</source>
        <translation>无法定位：%1</translation>
    </message>
</context>
<context>
    <name>QuantHeatmapModel</name>
    <message>
        <source>%1 (%2)
share of the logits&apos; error: %3 %
quantization error: %4 %, as %5: %6 %
its op %7 adds NMSE %8
%9 bytes, %10 as %5%11</source>
        <translation>%1 (%2)
占 logits 误差的比例：%3 %
量化误差：%4 %，若为 %5：%6 %
其算子 %7 引入 NMSE %8
%9 字节，若为 %5 则 %10 字节%11</translation>
    </message>
    <message>
        <source>
chosen to keep higher (tensor-types.txt)</source>
        <translation>
已选为保留更高精度（tensor-types.txt）</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>model</source>
        <translation>模型</translation>
    </message>
</context>
<context>
    <name>QuantReportView</name>
    <message>
        <source>No quantization report yet: Session &gt; Quantization report runs an F32 golden and a quantized test and ranks the weights.</source>
        <translation>尚无量化报告：会话 &gt; 量化报告 会运行 F32 标杆与量化待测程序并对权重排序。</translation>
    </message>
    <message>
        <source>Logits against golden: KL divergence %1 (mean over %2 rounds), top-1 agreement %3 %, NMSE %4 (the weights&apos; estimated parts add up to %5). Cells: each weight&apos;s share of the logits&apos; error, in %; bold: kept higher in %6/tensor-types.txt (%7 weights, %8 KiB more, budget %9 KiB).</source>
        <translation>与标杆相比的 logits：KL 散度 %1（%2 轮平均），top-1 一致率 %3 %，NMSE %4（各权重的估计贡献合计 %5）。单元格：各权重占 logits 误差的比例（%）；粗体：在 %6/tensor-types.txt 中保留更高精度（%7 个权重，多 %8 KiB，预算 %9 KiB）。</translation>
    </message>
    <message>
        <source>kept higher</source>
        <translation>保留更高精度</translation>
    </message>
    <message>
        <source>left as quantized</source>
        <translation>保持量化</translation>
    </message>
    <message>
        <source>Best to keep higher, per byte</source>
        <translation>按每字节收益，最值得保留更高精度的权重</translation>
    </message>
    <message>
        <source>share of the logits&apos; error, %</source>
        <translation>占 logits 误差的比例，%</translation>
    </message>
</context>
<context>
    <name>QuantText</name>
    <message>
        <source>quantization report: KL divergence %1, top-1 agreement %2 %; %3 weights ranked, in %4</source>
        <translation>量化报告：KL 散度 %1，top-1 一致率 %2 %；已排序 %3 个权重，位于 %4</translation>
    </message>
    <message>
        <source>quantization report cancelled</source>
        <translation>量化报告已取消</translation>
    </message>
    <message>
        <source>the quantization report could not be made: %1</source>
        <translation>无法生成量化报告：%1</translation>
    </message>
    <message>
        <source>step 1 of 5: golden, every operation&apos;s outputs in %1</source>
        <translation>第 1/5 步：标杆，%1中每个算子的输出</translation>
    </message>
    <message>
        <source>step 2 of 5: test, the same, consuming golden&apos;s tokens</source>
        <translation>第 2/5 步：待测，同样转储，并使用标杆的 token</translation>
    </message>
    <message>
        <source>step 3 of 5: comparing them, weights from both programs&apos; model files</source>
        <translation>第 3/5 步：比较两者，权重取自两个程序的模型文件</translation>
    </message>
    <message>
        <source>step 4 of 5: the test&apos;s matrix products again, with their inputs, each replayed on what it was given (a kernel&apos;s fault is not its weight&apos;s quantization)</source>
        <translation>第 4/5 步：再次转储待测方的矩阵乘积及其输入，并在其实际输入上逐一重放（内核的错误不是其权重的量化误差）</translation>
    </message>
    <message>
        <source>step 5 of 5: ranking the weights</source>
        <translation>第 5/5 步：对权重排序</translation>
    </message>
    <message>
        <source>round %1, op %2: its kernel is wrong on its own inputs (%3): the error it adds is the kernel&apos;s, not its weight&apos;s quantization (llmscope hunt tells more)</source>
        <translation>第 %1 轮，算子 %2：其内核在自身输入上是错误的（%3）：它引入的误差来自内核，而非其权重的量化（llmscope hunt 可给出更多信息）</translation>
    </message>
</context>
<context>
    <name>Reason</name>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>%1 NaN in golden</source>
        <translation>标杆中 %1 个 NaN</translation>
    </message>
    <message>
        <source>%1 Inf in golden</source>
        <translation>标杆中 %1 个 Inf</translation>
    </message>
    <message>
        <source>%1 NaN in my</source>
        <translation>待测中 %1 个 NaN</translation>
    </message>
    <message>
        <source>%1 Inf in my</source>
        <translation>待测中 %1 个 Inf</translation>
    </message>
    <message>
        <source>only %1 % of elements within relative error %2 (needs %3 %)</source>
        <translation>仅 %1 % 的元素在相对误差 %2 以内（需要 %3 %）</translation>
    </message>
    <message>
        <source>same element count, different shapes %1 vs %2</source>
        <translation>元素个数相同，形状不同：%1 对 %2</translation>
    </message>
    <message>
        <source>shape mismatch: golden %1 vs my %2</source>
        <translation>形状不匹配：标杆 %1，待测 %2</translation>
    </message>
    <message>
        <source>statistics over different elements (%1 vs %2): compare the tensors</source>
        <translation>统计量覆盖的元素不同（%1 对 %2）：请比较张量</translation>
    </message>
    <message>
        <source>NaN in the statistics</source>
        <translation>统计量中有 NaN</translation>
    </message>
    <message>
        <source>statistics differ by %1 % (relative)</source>
        <translation>统计量相差 %1 %（相对）</translation>
    </message>
    <message>
        <source>statistics of every expert&apos;s weights against one expert&apos;s: dump the tensors to compare</source>
        <translation>所有专家权重的统计量对比单个专家的：请转储张量再比较</translation>
    </message>
    <message>
        <source>only one side has data or statistics to compare</source>
        <translation>只有一侧有可比较的数据或统计量</translation>
    </message>
    <message>
        <source>data id %1, token %2 is only in the golden metadata</source>
        <translation>数据 id %1、token %2 只在标杆元数据中</translation>
    </message>
    <message>
        <source>data id %1, token %2 is only in my metadata</source>
        <translation>数据 id %1、token %2 只在待测元数据中</translation>
    </message>
    <message>
        <source>the weight %1</source>
        <translation>权重 %1</translation>
    </message>
    <message>
        <source>the graph input %1</source>
        <translation>计算图输入 %1</translation>
    </message>
    <message>
        <source>the weight input %1</source>
        <translation>权重输入 %1</translation>
    </message>
    <message>
        <source>the parameter %1</source>
        <translation>参数 %1</translation>
    </message>
    <message>
        <source>%1 (PyTorch&apos;s %2)</source>
        <translation>%1（PyTorch 的 %2）</translation>
    </message>
    <message>
        <source>could not be compared: %1</source>
        <translation>无法比较：%1</translation>
    </message>
    <message>
        <source>its output could not be compared</source>
        <translation>其输出无法比较</translation>
    </message>
    <message>
        <source>adds NMSE %1 beyond what its inputs explain (budget %2 for %3)</source>
        <translation>引入了输入无法解释的 NMSE %1（%3 的预算为 %2）</translation>
    </message>
    <message>
        <source>adds NMSE %1 beyond what its inputs explain: %2 moves data and must add none</source>
        <translation>引入了输入无法解释的 NMSE %1：%2 只搬运数据，不应引入误差</translation>
    </message>
    <message>
        <source>differs from golden&apos;s (relative error %1)</source>
        <translation>与标杆不同（相对误差 %1）</translation>
    </message>
    <message>
        <source>%1 differs between golden and test</source>
        <translation>%1 在标杆与待测之间不同</translation>
    </message>
    <message>
        <source>%1 differs between golden and test (relative error %2)</source>
        <translation>%1 在标杆与待测之间不同（相对误差 %2）</translation>
    </message>
    <message>
        <source>quantization of %1 (%2): relative error %3</source>
        <translation>%1 的量化（%2）：相对误差 %3</translation>
    </message>
    <message>
        <source>quantization of %1 (%2): relative error %3 (%4 against %2)</source>
        <translation>%1 的量化（%2）：相对误差 %3（%4 对 %2）</translation>
    </message>
    <message>
        <source>%1 (%2) differs from golden&apos;s (%3) by %4, more than any quantization of it should</source>
        <translation>%1（%2）与标杆（%3）相差 %4，超出任何量化应有的误差</translation>
    </message>
    <message>
        <source>%1 (%2) differs from golden&apos;s by %3, more than its quantization explains (%4)</source>
        <translation>%1（%2）与标杆相差 %3，超出其量化所能解释的误差（%4）</translation>
    </message>
    <message>
        <source>same topology</source>
        <translation>相同拓扑</translation>
    </message>
    <message>
        <source>by layer, node name and op</source>
        <translation>按层、节点名与算子</translation>
    </message>
    <message>
        <source>mapping file, then same topology</source>
        <translation>先按映射文件，再按相同拓扑</translation>
    </message>
    <message>
        <source>mapping file, then by layer, node name and op</source>
        <translation>先按映射文件，再按层、节点名与算子</translation>
    </message>
    <message>
        <source>across frameworks: modules by their weights&apos; GGUF names, decoder layers by their residual adds</source>
        <translation>跨框架：模块按其权重的 GGUF 名称，解码层按其残差加法</translation>
    </message>
    <message>
        <source>file against file</source>
        <translation>文件对文件</translation>
    </message>
    <message>
        <source>a systematic error of %1 % of the output (%2 standard deviations of rounding): scaled or biased, not rounded</source>
        <translation>输出有 %1 % 的系统误差（舍入的 %2 个标准差）：是缩放或偏置，而非舍入</translation>
    </message>
    <message>
        <source>beyond what float16 operands explain too (the largest error %1 times 8 standard deviations of that rounding)</source>
        <translation>也超出 float16 操作数所能解释的范围（最大误差为该舍入 8 个标准差的 %1 倍）</translation>
    </message>
    <message>
        <source>beyond float32&apos;s bound but within float16 operand rounding (the largest error %1 times 8 standard deviations of it, no systematic error): what a correct kernel gives when it rounds its float32 operands to float16, as device matrix kernels may; neither this kernel nor its inputs are at fault</source>
        <translation>超出 float32 的误差界，但在 float16 操作数舍入以内（最大误差为其 8 个标准差的 %1 倍，无系统误差）：正确的内核把 float32 操作数舍入为 float16 时就会如此（设备矩阵内核可能这样做）；既不是该内核的错，也不是其输入的错</translation>
    </message>
    <message>
        <source>ggml&apos;s own CPU kernel is as far from float64 on these inputs (%1 times the bound): the bound is too tight here, not this kernel wrong</source>
        <translation>在这些输入上 ggml 自己的 CPU 内核与 float64 相差同样多（误差界的 %1 倍）：是此处误差界过紧，而非该内核出错</translation>
    </message>
    <message>
        <source>ggml&apos;s CPU kernel on the same inputs: %1 times the bound</source>
        <translation>ggml 的 CPU 内核在相同输入上：误差界的 %1 倍</translation>
    </message>
    <message>
        <source>%1 % of the elements within relative error %2, below the %3 % msit asks of %4</source>
        <translation>%1 % 的元素在相对误差 %2 以内，低于 msit 对 %4 要求的 %3 %</translation>
    </message>
    <message>
        <source>%1 of %2 elements beyond the bound, the largest %3 times it</source>
        <translation>%2 个元素中有 %1 个超出误差界，最大为其 %3 倍</translation>
    </message>
    <message>
        <source>%1 elements NaN or Inf where the reference is not (or the other way)</source>
        <translation>%1 个元素为 NaN 或 Inf 而参考值不是（或相反）</translation>
    </message>
    <message>
        <source>mean |ULP error| %1, %2 % beyond %3 ULP (ggml&apos;s CPU kernel did not run)</source>
        <translation>平均 |ULP 误差| %1，%2 % 超过 %3 ULP（ggml 的 CPU 内核未运行）</translation>
    </message>
    <message>
        <source>mean |ULP error| %1, %2 % beyond %3 ULP; ggml&apos;s CPU kernel %4 %</source>
        <translation>平均 |ULP 误差| %1，%2 % 超过 %3 ULP；ggml 的 CPU 内核为 %4 %</translation>
    </message>
    <message>
        <source>mean |ULP error| %1, %2 % beyond %3 ULP; ggml&apos;s CPU kernel %4 %: beyond msProbe&apos;s share, but at most twice ggml&apos;s own CPU kernel&apos;s</source>
        <translation>平均 |ULP 误差| %1，%2 % 超过 %3 ULP；ggml 的 CPU 内核为 %4 %：超出 msProbe 的比例，但至多为 ggml 自己 CPU 内核的两倍</translation>
    </message>
    <message>
        <source>%1 of %2 elements differ</source>
        <translation>%2 个元素中有 %1 个不同</translation>
    </message>
    <message>
        <source>%1 of %2 normal values beyond the relative error, %3 of %4 small values beyond the absolute</source>
        <translation>%2 个常规值中有 %1 个超出相对误差，%4 个小值中有 %3 个超出绝对误差</translation>
    </message>
    <message>
        <source>%1 of %2 normal values beyond the relative error, %3 of %4 small values beyond the absolute, %5 NaN or Inf where the reference is not</source>
        <translation>%2 个常规值中有 %1 个超出相对误差，%4 个小值中有 %3 个超出绝对误差，%5 个为 NaN 或 Inf 而参考值不是</translation>
    </message>
    <message>
        <source>small-value error rate %1 times ggml&apos;s CPU kernel&apos;s</source>
        <translation>小值错误率为 ggml CPU 内核的 %1 倍</translation>
    </message>
    <message>
        <source>RMSE %1 times ggml&apos;s CPU kernel&apos;s</source>
        <translation>RMSE 为 ggml CPU 内核的 %1 倍</translation>
    </message>
    <message>
        <source>largest relative error %1 times ggml&apos;s CPU kernel&apos;s</source>
        <translation>最大相对误差为 ggml CPU 内核的 %1 倍</translation>
    </message>
    <message>
        <source>mean relative error %1 times ggml&apos;s CPU kernel&apos;s</source>
        <translation>平均相对误差为 ggml CPU 内核的 %1 倍</translation>
    </message>
    <message>
        <source>error balance %1 times ggml&apos;s CPU kernel&apos;s</source>
        <translation>误差均衡度为 ggml CPU 内核的 %1 倍</translation>
    </message>
    <message>
        <source>runs %1 and %2 (one configuration) are not bit-identical</source>
        <translation>运行 %1 与 %2（同一配置）不是逐位相同</translation>
    </message>
    <message>
        <source>runs %1 and %2 part beyond ggml&apos;s budget: %3</source>
        <translation>运行 %1 与 %2 的差异超出 ggml 的预算：%3</translation>
    </message>
    <message>
        <source>at least %1</source>
        <translation>至少 %1</translation>
    </message>
    <message>
        <source>about %1</source>
        <translation>约 %1</translation>
    </message>
    <message>
        <source>%1 differs between golden and test (relative error %2): the op&apos;s error comes in through it</source>
        <translation>%1 在标杆与待测之间不同（相对误差 %2）：该算子的误差由它引入</translation>
    </message>
    <message>
        <source>its input %1 already differs (relative error %2): the op that computes it was not compared</source>
        <translation>其输入 %1 已经不同（相对误差 %2）：计算它的算子未被比较</translation>
    </message>
    <message>
        <source>its inputs agree more than its output: the op itself adds the error</source>
        <translation>其输入比输出更一致：误差由该算子自身引入</translation>
    </message>
    <message>
        <source>adds NMSE %1 beyond what its inputs explain: the same command on the same machine must agree bit for bit</source>
        <translation>在其输入可解释的误差之外引入 NMSE %1：同一台机器上的同一命令必须逐位一致</translation>
    </message>
    <message>
        <source>exact: both sides ran the same command with the same libraries on the same machine, so every operation must agree bit for bit</source>
        <translation>exact（逐位一致标准）：两侧在同一台机器上以相同的库运行了同一命令，因此每个算子都必须逐位一致</translation>
    </message>
    <message>
        <source>rounding: both sides ran on %1 with the same types (differing in %2), so each operation is held to what float rounding in another order may change</source>
        <translation>rounding（舍入标准）：两侧都在 %1 上以相同的类型运行（%2 不同），因此每个算子只允许换一种求和顺序时浮点舍入可能带来的差异</translation>
    </message>
    <message>
        <source>engine: golden ran on %1, test on %2, so each operation is held to ggml&apos;s cross-backend budgets</source>
        <translation>engine（跨后端标准）：标杆运行在 %1 上，待测运行在 %2 上，因此每个算子按 ggml 的跨后端预算评判</translation>
    </message>
    <message>
        <source>%1: as asked (--standard)</source>
        <translation>%1：按指定（--standard）</translation>
    </message>
    <message>
        <source>engine: both sides ran on %1, but with other types (%2), so each operation is held to ggml&apos;s cross-backend budgets and to what the quantization explains</source>
        <translation>engine（跨后端标准）：两侧都在 %1 上运行，但类型不同（%2），因此每个算子按 ggml 的跨后端预算及量化可解释的误差评判</translation>
    </message>
    <message>
        <source>msit: a side is not an llmscope dump, so each tensor pair is held to msit&apos;s per-element rule</source>
        <translation>msit（msit 标准）：有一侧不是 llmscope 转储，因此每对张量按 msit 的逐元素规则评判</translation>
    </message>
    <message>
        <source>engine: both sides ran on %1, but on other machines, whose devices may run other kernels, so each operation is held to ggml&apos;s cross-backend budgets</source>
        <translation>engine（跨后端标准）：两侧都在 %1 上运行，但在不同的机器上，其设备可能运行不同的内核，因此每个算子按 ggml 的跨后端预算评判</translation>
    </message>
    <message>
        <source>engine: both sides ran on %1, but their graphs differ (other kernels: flash attention, fusion, batch), so each operation is held to ggml&apos;s cross-backend budgets</source>
        <translation>engine（跨后端标准）：两侧都在 %1 上运行，但计算图不同（内核不同：flash attention、融合、批大小），因此每个算子按 ggml 的跨后端预算评判</translation>
    </message>
    <message>
        <source>engine: a PyTorch dump against an engine&apos;s, other kernels throughout, so each operation is held to ggml&apos;s cross-backend budgets</source>
        <translation>engine（跨后端标准）：PyTorch 转储对比引擎的转储，内核完全不同，因此每个算子按 ggml 的跨后端预算评判</translation>
    </message>
    <message>
        <source>engine: a dump does not say which backends ran it (%1), so each operation is held to ggml&apos;s cross-backend budgets</source>
        <translation>engine（跨后端标准）：有一侧的转储未记录由哪些后端运行（%1），因此每个算子按 ggml 的跨后端预算评判</translation>
    </message>
    <message>
        <source>golden&apos;s</source>
        <translation>标杆</translation>
    </message>
    <message>
        <source>test&apos;s</source>
        <translation>待测</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is neither a dump folder nor a tensor file</source>
        <translation>“%1”既不是转储目录，也不是张量文件</translation>
    </message>
    <message>
        <source>compare a file with a file, or a folder with a folder (&apos;%1&apos; and &apos;%2&apos;)</source>
        <translation>请用文件对比文件、目录对比目录（“%1”与“%2”）</translation>
    </message>
    <message>
        <source>&apos;%1&apos; holds no tensors</source>
        <translation>“%1”不含任何张量</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a folder; give a dump folder (msit_dump_*, or one holding it)</source>
        <translation>“%1”不是目录；请给出转储目录（msit_dump_*，或包含它的目录）</translation>
    </message>
    <message>
        <source>cannot open &apos;%1&apos;: %2</source>
        <translation>无法打开“%1”：%2</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a regular file</source>
        <translation>“%1”不是普通文件</translation>
    </message>
    <message>
        <source>observing changed the program&apos;s results: round %1&apos;s %2 differs from the run the probe only watched, from the same tokens; what the dump shows is the observed program, not the one that runs unobserved (try --keep-fusion)</source>
        <translation>观测改变了程序的结果：在相同 token 下，第 %1 轮的 %2 与探针只旁观的那次运行不同；转储呈现的是被观测的程序，而非未被观测时实际运行的程序（可尝试 --keep-fusion）</translation>
    </message>
    <message>
        <source>observing changed the program&apos;s results: round %1&apos;s %2 differs from the run the probe only watched (relative error about %3), from the same tokens; what the dump shows is the observed program, not the one that runs unobserved (try --keep-fusion)</source>
        <translation>观测改变了程序的结果：在相同 token 下，第 %1 轮的 %2 与探针只旁观的那次运行不同（相对误差约 %3）；转储呈现的是被观测的程序，而非未被观测时实际运行的程序（可尝试 --keep-fusion）</translation>
    </message>
    <message>
        <source>observing changed the program&apos;s results only in their last bits: round %1&apos;s %2 differs from the run the probe only watched by a relative %3 from the same tokens, as summing in another order does (the probe splits the backend&apos;s graph where it reads); what the dump shows is the program within float rounding</source>
        <translation>观测只改变了程序结果的最后几位：在相同 token 下，第 %1 轮的 %2 与探针只旁观的那次运行相差相对 %3，相当于换一种顺序求和（探针在读取处拆分了后端的计算图）；转储呈现的程序与实际运行的程序只差浮点舍入</translation>
    </message>
    <message>
        <source>observing changed the program&apos;s choices: from round %1 it consumed other tokens than the run the probe only watched</source>
        <translation>观测改变了程序的选择：从第 %1 轮起，它消费的 token 与探针只旁观的那次运行不同</translation>
    </message>
    <message>
        <source>observing changed the program&apos;s choices: from round %1 it consumed other tokens than the run the probe only watched (the %2 round(s) before agree bit for bit)</source>
        <translation>观测改变了程序的选择：从第 %1 轮起，它消费的 token 与探针只旁观的那次运行不同（此前的 %2 轮逐位一致）</translation>
    </message>
    <message>
        <source>the observer check compared nothing: the two runs recorded no result of the same round (a dump from an older probe, or a program whose rounds the probe cannot read)</source>
        <translation>观测检查没有比对任何内容：两次运行没有记录同一轮的结果（旧版探针的转储，或探针无法读取其轮次的程序）</translation>
    </message>
    <message>
        <source>observing changed nothing: %1 round(s) computed the same results bit for bit as the run the probe only watched (%2)</source>
        <translation>观测没有改变任何内容：%1 轮计算结果与探针只旁观的那次运行逐位相同（%2）</translation>
    </message>
    <message>
        <source>observing changed nothing: every request consumed the same tokens as in the run the probe only watched, and %1 round(s) batched alike computed the same results bit for bit (%2); %3 round(s) the program batched otherwise (a server decodes its requests together as they come) are not held against each other</source>
        <translation>观测没有改变任何内容：每个请求消耗的词元与探针只旁观的那次运行相同，%1 轮批次相同的计算结果逐位相同（%2）；程序以不同方式分批的 %3 轮（服务器在请求到达时将其一起解码）不作相互比对</translation>
    </message>
    <message>
        <source>the program&apos;s choices differ from the run the probe only watched: from round %1 its requests consumed other tokens, and %2 round(s) before it the program batched otherwise (a server decodes its requests together as they come); a result that depends on how requests are batched (as a kernel&apos;s fault can) differs from run to run, observed or not, so observing is not shown to be the cause</source>
        <translation>程序的选择与探针只旁观的那次运行不同：从第 %1 轮起其请求消耗了不同的词元，而此前有 %2 轮程序以不同方式分批（服务器在请求到达时将其一起解码）；依赖请求分批方式的结果（内核缺陷可能如此）无论是否观测都会逐次运行不同，因此不能认定是观测造成的</translation>
    </message>
</context>
<context>
    <name>ReasonText</name>
    <message>
        <source>the command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>the machine</source>
        <translation>机器</translation>
    </message>
    <message>
        <source>fusion</source>
        <translation>融合</translation>
    </message>
    <message>
        <source>nothing recorded</source>
        <translation>没有记录</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
</context>
<context>
    <name>RecentDumps</name>
    <message>
        <source>Open &amp;recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
</context>
<context>
    <name>ReplayController</name>
    <message>
        <source>replay</source>
        <translation>重放</translation>
    </message>
    <message>
        <source>replay of the previous source stopped</source>
        <translation>上一来源的重放已停止</translation>
    </message>
    <message>
        <source>Open a dump first (File &gt; Open dump folder)</source>
        <translation>请先打开一个 dump（文件 &gt; 打开 dump 文件夹）</translation>
    </message>
    <message>
        <source>A replay is running; cancel it first</source>
        <translation>正在重放；请先取消</translation>
    </message>
    <message>
        <source>Replaying the operations of %1...</source>
        <translation>正在重放 %1 中的算子...</translation>
    </message>
    <message>
        <source>Replaying: %1 of %2 operations</source>
        <translation>正在重放：第 %1 / %2 个算子</translation>
    </message>
    <message>
        <source>Could not replay: %1</source>
        <translation>无法重放：%1</translation>
    </message>
    <message>
        <source>Replayed %1 of %2 operations that run a kernel; %3 outputs: %4 pass, %5 warn, %6 fail, %7 skipped, %8 not replayable</source>
        <translation>已重放 %2 个运行内核的算子中的 %1 个；%3 个输出：%4 个通过，%5 个警告，%6 个未通过，%7 个跳过，%8 个无法重放</translation>
    </message>
    <message>
        <source>[llmscope]   %1 round %2 %3 %4 (%5): %6</source>
        <translation>[llmscope]   %1 第 %2 轮 %3 %4（%5）：%6</translation>
    </message>
    <message>
        <source>Could not replay %1: %2</source>
        <translation>无法重放 %1：%2</translation>
    </message>
    <message>
        <source>%1 in round %2: the float64 replay on its own inputs (left) against its output (right): %3</source>
        <translation>%1，第 %2 轮：在其自身输入上的 float64 重放（左）对比其输出（右）：%3</translation>
    </message>
</context>
<context>
    <name>RoundsWords</name>
    <message>
        <source>round %1</source>
        <translation>第 %1 轮</translation>
    </message>
    <message>
        <source>rounds %1</source>
        <translation>第 %1 轮</translation>
    </message>
    <message>
        <source>every round</source>
        <translation>每一轮</translation>
    </message>
    <message>
        <source>%1 on</source>
        <translation>%1 及以后</translation>
    </message>
</context>
<context>
    <name>ScanController</name>
    <message>
        <source>scan</source>
        <translation>扫描</translation>
    </message>
    <message>
        <source>scan of the previous source stopped</source>
        <translation>已停止对上一个来源的扫描</translation>
    </message>
    <message>
        <source>Scanning %1...</source>
        <translation>正在扫描 %1...</translation>
    </message>
    <message>
        <source>Could not open %1</source>
        <translation>无法打开 %1</translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s) in %1 round(s)</source>
        <translation>
            <numerusform>%n 个张量，共 %1 轮</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>; %n file(s) could not be read</source>
        <translation>
            <numerusform>；%n 个文件无法读取</numerusform>
        </translation>
    </message>
    <message>
        <source>cannot read %1</source>
        <translation>无法读取 %1</translation>
    </message>
    <message>
        <source>...and %1 more files that could not be read (&apos;llmscope info %2&apos; lists them all)</source>
        <translation>……另有 %1 个文件无法读取（&apos;llmscope info %2&apos; 会全部列出）</translation>
    </message>
</context>
<context>
    <name>SessionDocument</name>
    <message>
        <source>Golden&apos;s dump: %1</source>
        <translation>标杆的转储：%1</translation>
    </message>
    <message>
        <source>Test&apos;s dump: %1</source>
        <translation>待测的转储：%1</translation>
    </message>
    <message>
        <source>Dump: %1</source>
        <translation>转储：%1</translation>
    </message>
    <message>
        <source>The launched program&apos;s dump: %1</source>
        <translation>所启动程序的转储：%1</translation>
    </message>
</context>
<context>
    <name>SessionMenu</name>
    <message>
        <source>&amp;Session</source>
        <translation>会话(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Launch program...</source>
        <translation>启动程序(&amp;L)...</translation>
    </message>
    <message>
        <source>Run a&amp;gain</source>
        <translation>再次运行(&amp;G)</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>停止(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Apply selection</source>
        <translation>应用选择(&amp;A)</translation>
    </message>
    <message>
        <source>Dump the checked operations from the program&apos;s next graph on</source>
        <translation>从程序的下一张计算图起转储勾选的算子</translation>
    </message>
    <message>
        <source>&amp;Compare dumps...</source>
        <translation>比较转储(&amp;C)...</translation>
    </message>
    <message>
        <source>&amp;Hunt the first divergent operation...</source>
        <translation>定位首个偏离的算子(&amp;H)...</translation>
    </message>
    <message>
        <source>Run a golden and a test program, compare, and open the first operation that departs</source>
        <translation>运行标杆与待测程序并比较，打开首个偏离的算子</translation>
    </message>
    <message>
        <source>&amp;Replay operations (opcheck)</source>
        <translation>重放算子(&amp;R)（opcheck）</translation>
    </message>
    <message>
        <source>Replay each operation of the open dump on its own dumped inputs: is its kernel wrong, or were its inputs? (dump with --type tensor -tiling)</source>
        <translation>在打开的 dump 中，用每个算子自身落盘的输入重放它：是算子内核错了，还是输入已经错了？（dump 时使用 --type tensor -tiling）</translation>
    </message>
    <message>
        <source>&amp;Quantization report...</source>
        <translation>量化报告(&amp;Q)...</translation>
    </message>
    <message>
        <source>An F32 golden against its quantized model: which weights lose the most, and which to keep in a higher type</source>
        <translation>F32 标杆对比其量化模型：哪些权重损失最大，哪些应保留为更高精度类型</translation>
    </message>
    <message>
        <source>Send this selection to the running program: it dumps these operations from its next graph on (Ctrl+Return)</source>
        <translation>把此选择发送给正在运行的程序：它从下一张计算图起转储这些算子（Ctrl+Return）</translation>
    </message>
    <message>
        <source>Launch a program (Session &gt; Launch, Ctrl+L) to apply a selection while it runs</source>
        <translation>先启动程序（会话 &gt; 启动，Ctrl+L），才能在其运行时应用选择</translation>
    </message>
    <message>
        <source>Cannot launch: %1</source>
        <translation>无法启动：%1</translation>
    </message>
    <message>
        <source>S&amp;pread...</source>
        <translation>多次运行比对(&amp;P)...</translation>
    </message>
    <message>
        <source>One prompt run several ways side by side (the same program N times, thread counts, batch sizes, devices): the first op where the runs part, and the run that departs</source>
        <translation>同一提示词以多种方式运行并排比对（同一程序运行 N 次、线程数、批大小、设备）：各次运行首个分道的算子，以及偏离的那次运行</translation>
    </message>
    <message>
        <source>Session</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>The program has ended: run it again, dumping the checked operations from its first round (Ctrl+Return). A program that ends before you can pick may have an option to slow it (the sample program&apos;s --pace-ms)</source>
        <translation>程序已结束：再次运行它，从第一轮起转储勾选的算子（Ctrl+Return）。程序结束得太快、来不及勾选时，可用它自己的选项放慢（示例程序的 --pace-ms）</translation>
    </message>
</context>
<context>
    <name>SlicePicker</name>
    <message>
        <source>Rows:</source>
        <translation>行：</translation>
    </message>
    <message>
        <source>Columns:</source>
        <translation>列：</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>dim %1 (%2)</source>
        <translation>维度 %1 (%2)</translation>
    </message>
    <message>
        <source>dim %1 = </source>
        <translation>维度 %1 = </translation>
    </message>
</context>
<context>
    <name>SpreadAction</name>
    <message>
        <source>spread</source>
        <translation>多次运行比对</translation>
    </message>
    <message numerus="yes">
        <source>Spread: %n run(s)...</source>
        <translation>
            <numerusform>多次运行比对：%n 次运行...</numerusform>
        </translation>
    </message>
    <message>
        <source>A spread needs at least two runs: give two command lines, a repeat or values to vary.</source>
        <translation>多次运行比对至少需要两次运行：请给出两条命令行、重复次数或要变化的取值。</translation>
    </message>
    <message>
        <source>The dump of &apos;%1&apos; failed: %2</source>
        <translation>“%1”的转储失败：%2</translation>
    </message>
    <message>
        <source>The dump of &apos;%1&apos; wrote no dump folder</source>
        <translation>“%1”的转储没有写出转储目录</translation>
    </message>
    <message>
        <source>Comparing every two runs...</source>
        <translation>正在两两比对各次运行...</translation>
    </message>
    <message>
        <source>First departure: round %1, %2: run %3 departs</source>
        <translation>首次分道：第 %1 轮，%2：第 %3 次运行偏离</translation>
    </message>
    <message>
        <source>No run departs beyond its standard</source>
        <translation>没有运行超出其标准而偏离</translation>
    </message>
    <message>
        <source>Cancelled at run %1 of %2</source>
        <translation>在第 %1/%2 次运行时已取消</translation>
    </message>
    <message>
        <source>Could not start %1: %2</source>
        <translation>无法启动 %1：%2</translation>
    </message>
    <message>
        <source>Run %1 of %2 (%3): %4</source>
        <translation>第 %1/%2 次运行（%3）：%4</translation>
    </message>
    <message>
        <source>Measuring rounds %1 to %2...</source>
        <translation>正在测量第 %1 至 %2 轮……</translation>
    </message>
    <message>
        <source>Observing changed run %1&apos;s results beyond rounding (see the console): the runs are compared as the probe saw them, not as they run unobserved. </source>
        <translation>观测使第 %1 次运行的结果发生了超出舍入的变化（见控制台）：各次运行按探针所见比对，而非按未被观测时的运行。</translation>
    </message>
    <message>
        <source>The dump of &apos;%1&apos; failed: llmscope dump crashed</source>
        <translation>“%1”的转储失败：llmscope dump 崩溃了</translation>
    </message>
    <message>
        <source>The dump of &apos;%1&apos; failed: the program exited with status %2; its last error line: &quot;%3&quot; (the console has the rest)</source>
        <translation>“%1”的转储失败：程序以状态 %2 退出；它的最后一行错误输出：“%3”（其余内容见控制台）</translation>
    </message>
    <message>
        <source>Cancelled while the runs were compared</source>
        <translation>在比较各次运行时已取消</translation>
    </message>
</context>
<context>
    <name>SpreadDialog</name>
    <message>
        <source>Spread: one prompt, several runs side by side</source>
        <translation>多次运行比对：同一提示词，多次运行并排比对</translation>
    </message>
    <message>
        <source>e.g. -t 1,2,4   --batch 1,512   --device cpu,vulkan   --flash-attn on,off</source>
        <translation>例如 -t 1,2,4   --batch 1,512   --device cpu,vulkan   --flash-attn on,off</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>&amp;Commands:</source>
        <translation>命令(&amp;C)：</translation>
    </message>
    <message>
        <source>&amp;Vary:</source>
        <translation>变化(&amp;V)：</translation>
    </message>
    <message>
        <source>&amp;Repeat each:</source>
        <translation>每条重复(&amp;R)：</translation>
    </message>
    <message>
        <source>Roun&amp;ds:</source>
        <translation>轮次(&amp;D)：</translation>
    </message>
    <message>
        <source>...</source>
        <translation>...</translation>
    </message>
    <message>
        <source>&amp;Folder:</source>
        <translation>目录(&amp;F)：</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>Folder for the spread&apos;s dumps</source>
        <translation>多次运行比对的转储目录</translation>
    </message>
    <message>
        <source>Give at least one command line.</source>
        <translation>请至少给出一条命令行。</translation>
    </message>
    <message>
        <source>A spread needs at least two runs: give two command lines, repeat each, or vary a flag.</source>
        <translation>多次运行比对至少需要两次运行：请给出两条命令行、让每条重复，或变化一个参数。</translation>
    </message>
    <message>
        <source>Give a folder for the dumps.</source>
        <translation>请给出转储目录。</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s)</source>
        <translation>
            <numerusform>%n 次运行</numerusform>
        </translation>
    </message>
    <message>
        <source>Add a preset or recent launch...</source>
        <translation>添加预设或最近的启动...</translation>
    </message>
    <message>
        <source>preset: %1</source>
        <translation>预设：%1</translation>
    </message>
    <message>
        <source>&amp;Add:</source>
        <translation>添加(&amp;A)：</translation>
    </message>
    <message>
        <source>Vary needs a flag and its values, as in -t 1,2,4.</source>
        <translation>“变化”需要一个参数及其取值，例如 -t 1,2,4。</translation>
    </message>
    <message>
        <source>Dump every &amp;tensor at once (no statistics first)</source>
        <translation>一次转储全部张量（不先转储统计量）(&amp;T)</translation>
    </message>
    <message>
        <source>Each run&apos;s statistics are dumped and every two runs compared op by op; the rounds where runs part are dumped again with their tensors and measured. Runs of one command must be bit-identical; runs of different commands are held to ggml&apos;s budgets. The first op where they part is named, with the run that departs.</source>
        <translation>先转储每次运行的统计量，逐算子两两比较各次运行；运行分离的轮次再转储其张量并精确测量。同一命令的多次运行必须逐位相同；不同命令的运行以 ggml 的误差预算衡量。指出运行首次分离的算子及偏离的那次运行。</translation>
    </message>
    <message>
        <source>llmscope spread --tensors: every run&apos;s tensors in one pass. Takes more disk; the prompt at once against one token a round dumps them so anyway.</source>
        <translation>llmscope spread --tensors：一次转储每次运行的全部张量。占用更多磁盘；整段提示对逐 token 的比较本就如此转储。</translation>
    </message>
    <message>
        <source>Dump the &amp;KV cache too (compared position by position)</source>
        <translation>同时转储 KV 缓存（按位置比较）(&amp;K)</translation>
    </message>
    <message>
        <source>Each run &amp;unfused too: the backends&apos; fusion on and off</source>
        <translation>每次运行也不融合运行(&amp;U)：后端融合开与关</translation>
    </message>
    <message>
        <source>llmscope spread --fusion on,off: where the two part, a fused kernel departs from the unfused ops it stands for (GGML_CPU_DISABLE_FUSION, GGML_VK_DISABLE_FUSION, GGML_CUDA_DISABLE_FUSION).</source>
        <translation>llmscope spread --fusion on,off：两者分离之处，即融合内核偏离了它所代替的未融合算子（GGML_CPU_DISABLE_FUSION、GGML_VK_DISABLE_FUSION、GGML_CUDA_DISABLE_FUSION）。</translation>
    </message>
    <message>
        <source>NAME=value ... for every run, e.g. OMP_NUM_THREADS=4</source>
        <translation>NAME=value ……每次运行都用，例如 OMP_NUM_THREADS=4</translation>
    </message>
    <message>
        <source>Settings for every run. A command line may also begin with its own, as in a shell: GGML_VK_VISIBLE_DEVICES=0 ./llama-simple ... (those win).</source>
        <translation>每次运行共用的环境变量。命令行也可以像在 shell 中一样以自己的设置开头：GGML_VK_VISIBLE_DEVICES=0 ./llama-simple ……（以命令行的为准）。</translation>
    </message>
    <message>
        <source>E&amp;nvironment:</source>
        <translation>环境变量(&amp;N)：</translation>
    </message>
    <message>
        <source>Environment: %1</source>
        <translation>环境变量：%1</translation>
    </message>
    <message>
        <source>Line %1 cannot be run: %2</source>
        <translation>第 %1 行无法运行：%2</translation>
    </message>
    <message>
        <source>one command line a line, e.g. /path/to/llama-simple -m model.gguf -n 3 (a program&apos;s path, or a name in PATH)</source>
        <translation>每行一条命令行，例如 /path/to/llama-simple -m model.gguf -n 3（程序的路径，或 PATH 中的名字）</translation>
    </message>
    <message>
        <source>every request</source>
        <translation>所有请求</translation>
    </message>
    <message>
        <source>llmscope spread --seq S: each run&apos;s request in sequence S (llama-server&apos;s slot S) alone, its rows cut out of the rounds it shared with other slots, every tensor in one pass</source>
        <translation>llmscope spread --seq S：只取每次运行中序列 S（llama-server 的槽位 S）的请求，从与其他槽位共享的轮次中取出它自己的行，一次转储全部张量</translation>
    </message>
    <message>
        <source>&amp;Sequence (slot):</source>
        <translation>序列（槽位）(&amp;S)：</translation>
    </message>
</context>
<context>
    <name>SpreadTableModel</name>
    <message>
        <source>  ◆ first departure</source>
        <translation>  ◆ 首次分道</translation>
    </message>
    <message>
        <source>the runs differ here within their standard</source>
        <translation>各次运行在此有差异，但在其标准之内</translation>
    </message>
    <message>
        <source>every run bit-identical here</source>
        <translation>各次运行在此逐位一致</translation>
    </message>
    <message>
        <source>Round</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Operation</source>
        <translation>算子</translation>
    </message>
    <message>
        <source>Spread</source>
        <translation>离散度</translation>
    </message>
    <message>
        <source>run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>%1 against %2: %3 (relative euclidean distance of the outputs)
%4</source>
        <translation>%1 对比 %2：%3（输出的相对欧氏距离）
%4</translation>
    </message>
    <message>
        <source>%1 (departs)</source>
        <translation>%1（偏离）</translation>
    </message>
    <message>
        <source>The largest relative error between two runs&apos; outputs of the operation, ||a - b|| / ||a||, in percent of the output&apos;s size: 0 where every run computed the same bits</source>
        <translation>该算子在两次运行输出之间的最大相对误差 ||a - b|| / ||a||，以输出大小的百分比表示：所有运行算出的比特完全相同时为 0</translation>
    </message>
</context>
<context>
    <name>SpreadView</name>
    <message>
        <source>&amp;Only where the runs differ</source>
        <translation>仅显示各次运行有差异处(&amp;O)</translation>
    </message>
    <message>
        <source>Run one prompt several ways side by side (Session &gt; Spread).</source>
        <translation>以多种方式运行同一提示词并排比对（会话 &gt; 多次运行比对）。</translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;%n run(s)&lt;/b&gt;, every two compared op by op</source>
        <translation>
            <numerusform>&lt;b&gt;%n 次运行&lt;/b&gt;，逐算子两两比对</numerusform>
        </translation>
    </message>
    <message>
        <source>&lt;br&gt;No run departs beyond its standard: runs of one command bit-identical, the others within ggml&apos;s budgets.</source>
        <translation>&lt;br&gt;没有运行超出其标准而偏离：同一命令的运行逐位一致，其余在 ggml 的误差预算之内。</translation>
    </message>
    <message numerus="yes">
        <source>&lt;br&gt;Nondeterministic: %n op output(s) differ between runs of one command; the first: round %1, %2 (%3 run(s) differ from the first).</source>
        <translation>
            <numerusform>&lt;br&gt;不确定性：同一命令的多次运行之间有 %n 个算子输出不同；第一个：第 %1 轮，%2（%3 次运行与第一次不同）。</numerusform>
        </translation>
    </message>
    <message>
        <source>&lt;br&gt;Dumps and reports (spread.json, spread.csv) in %1</source>
        <translation>&lt;br&gt;转储与报告（spread.json、spread.csv）位于 %1</translation>
    </message>
    <message>
        <source>No operation differs between the runs: untick the box above to see every one.</source>
        <translation>各次运行之间没有算子不同：取消勾选上方的选项可查看全部算子。</translation>
    </message>
    <message>
        <source>&lt;b style=&quot;color:#b3261e&quot;&gt;The spread failed:&lt;/b&gt; %1&lt;br&gt;No result is shown: an earlier spread&apos;s would read as this one&apos;s.</source>
        <translation>&lt;b style=&quot;color:#b3261e&quot;&gt;多次运行比对失败：&lt;/b&gt; %1&lt;br&gt;不显示任何结果：否则之前那次比对的结果会被误当作这一次的。</translation>
    </message>
    <message>
        <source>&lt;br&gt;Colours: &lt;span style=&quot;background:#d24f32&quot;&gt;&amp;nbsp;red&amp;nbsp;&lt;/span&gt; the runs part beyond their standard here; &lt;span style=&quot;background:#91c1e4&quot;&gt;&amp;nbsp;blue&amp;nbsp;&lt;/span&gt; they differ within it; white: bit-identical. Deeper: farther apart.</source>
        <translation>&lt;br&gt;颜色：&lt;span style=&quot;background:#d24f32&quot;&gt;&amp;nbsp;红&amp;nbsp;&lt;/span&gt; 此处各次运行的差异超出其标准；&lt;span style=&quot;background:#91c1e4&quot;&gt;&amp;nbsp;蓝&amp;nbsp;&lt;/span&gt; 有差异但在标准之内；白：逐位相同。颜色越深，相差越远。</translation>
    </message>
    <message>
        <source>&lt;br&gt;First departure: &lt;b&gt;round %1, %2&lt;/b&gt;: &lt;b&gt;%3 departs&lt;/b&gt; (%4)&lt;br&gt;%5</source>
        <translation>&lt;br&gt;首次分道：&lt;b&gt;第 %1 轮，%2&lt;/b&gt;：&lt;b&gt;%3 偏离&lt;/b&gt;（%4）&lt;br&gt;%5</translation>
    </message>
    <message>
        <source>&lt;br&gt;Configuration, %1 against %2: %3</source>
        <translation>&lt;br&gt;配置，%1 对比 %2：%3</translation>
    </message>
</context>
<context>
    <name>StartPage</name>
    <message>
        <source>&lt;h2&gt;%1 is running under the probe&lt;/h2&gt;&lt;p&gt;Its operations fill the tree on the left as it computes: model, layers, the ggml nodes of each.&lt;/p&gt;&lt;p&gt;Check the operations to dump (or type ids such as &lt;code&gt;2_29,3&lt;/code&gt;) and press &lt;b&gt;Apply&lt;/b&gt; (Ctrl+Return): the program dumps them from its next graph on, and the tree marks them.&lt;/p&gt;&lt;p&gt;The program&apos;s output is in the console below; Stop is Ctrl+. and Run again Ctrl+R.&lt;/p&gt;</source>
        <translation>&lt;h2&gt;%1 正在探针下运行&lt;/h2&gt;&lt;p&gt;它计算时，左侧的树会逐步填充：模型、各层，以及每层的 ggml 节点。&lt;/p&gt;&lt;p&gt;勾选要转储的算子（或输入 &lt;code&gt;2_29,3&lt;/code&gt; 这样的 id）并按&lt;b&gt;应用&lt;/b&gt;（Ctrl+Return）：程序从下一张计算图起转储它们，树中会做出标记。&lt;/p&gt;&lt;p&gt;程序的输出在下方控制台；停止为 Ctrl+.，再次运行为 Ctrl+R。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;h2&gt;Could not launch the program&lt;/h2&gt;&lt;p&gt;%1&lt;/p&gt;</source>
        <translation>&lt;h2&gt;无法启动程序&lt;/h2&gt;&lt;p&gt;%1&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;h2&gt;Could not open the dump&lt;/h2&gt;&lt;p&gt;%1&lt;/p&gt;</source>
        <translation>&lt;h2&gt;无法打开该转储&lt;/h2&gt;&lt;p&gt;%1&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;h2&gt;Find the first operation that goes wrong&lt;/h2&gt;&lt;p&gt;&lt;a href=&quot;launch&quot;&gt;Launch a program&lt;/a&gt; (Ctrl+L) under the probe: its operations appear on the left as it runs; check the ones to dump and press Apply (Ctrl+Return).&lt;/p&gt;&lt;p&gt;&lt;a href=&quot;open&quot;&gt;Open a dump folder&lt;/a&gt; (Ctrl+O) written by llmscope or by &lt;code&gt;msit llm dump&lt;/code&gt;, or drop one on this window.&lt;/p&gt;&lt;p&gt;&lt;a href=&quot;hunt&quot;&gt;Hunt the first divergent operation&lt;/a&gt; (Ctrl+H): a golden and a test program run and compared, and the window opens on the operation where they part, and why.&lt;/p&gt;&lt;p&gt;&lt;a href=&quot;compare&quot;&gt;Compare two dumps&lt;/a&gt; (Ctrl+D) you already have.&lt;/p&gt;</source>
        <translation>&lt;h2&gt;找出第一个出错的算子&lt;/h2&gt;&lt;p&gt;在探针下&lt;a href=&quot;launch&quot;&gt;启动程序&lt;/a&gt;（Ctrl+L）：程序运行时，它的算子显示在左侧；勾选要转储的算子并按“应用”（Ctrl+Return）。&lt;/p&gt;&lt;p&gt;&lt;a href=&quot;open&quot;&gt;打开转储目录&lt;/a&gt;（Ctrl+O），可以是 llmscope 或 &lt;code&gt;msit llm dump&lt;/code&gt; 写出的，也可以把目录拖到本窗口。&lt;/p&gt;&lt;p&gt;&lt;a href=&quot;hunt&quot;&gt;定位首个偏离的算子&lt;/a&gt;（Ctrl+H）：运行并比对标杆程序与待测程序，窗口打开在两者分道的算子上，并说明原因。&lt;/p&gt;&lt;p&gt;&lt;a href=&quot;compare&quot;&gt;比对两个已有的转储&lt;/a&gt;（Ctrl+D）。&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>StepsText</name>
    <message>
        <source>could not launch %1: %2</source>
        <translation>无法启动 %1: %2</translation>
    </message>
    <message>
        <source>%1 did not finish well: %2</source>
        <translation>%1 未正常结束：%2</translation>
    </message>
    <message>
        <source>the run wrote no dump under %1</source>
        <translation>该次运行未在 %1 下写出转储</translation>
    </message>
    <message>
        <source>%1 and %2 could not be compared</source>
        <translation>无法比较 %1 与 %2</translation>
    </message>
</context>
<context>
    <name>TensorDiffView</name>
    <message>
        <source>Golden</source>
        <translation>标杆</translation>
    </message>
    <message>
        <source>Test</source>
        <translation>待测</translation>
    </message>
    <message>
        <source>Relative error</source>
        <translation>相对误差</translation>
    </message>
    <message>
        <source>Pick an operation in the Diff table to see its tensors, golden and test, side by side.</source>
        <translation>在差异表中选择一个算子，并排查看其标杆与待测张量。</translation>
    </message>
    <message>
        <source>No tensor files of this operation on both sides (dump it with --type tensor).</source>
        <translation>两侧都没有该算子的张量文件（请用 --type tensor 转储）。</translation>
    </message>
    <message>
        <source>The shapes differ: golden and test are shown as their files hold them.</source>
        <translation>形状不同：标杆与待测按各自文件中的形状显示。</translation>
    </message>
    <message>
        <source>Both %1 elements; pick the dimensions to show below.</source>
        <translation>两侧均为 %1 个元素；在下方选择要显示的维度。</translation>
    </message>
    <message>
        <source>Rows un-permuted within heads of %1, as Hugging Face orders them.</source>
        <translation>各注意力头内的行已按 Hugging Face 的顺序还原（头大小 %1）。</translation>
    </message>
    <message>
        <source>Only the last token&apos;s rows: the engine computed no others here.</source>
        <translation>仅比较最后一个 token 的行：引擎在此处未计算其他行。</translation>
    </message>
    <message>
        <source>Pick an operation in the Diff table above to see its tensors, golden and test, side by side here.</source>
        <translation>在上方的差异表中选择一个算子，即可在此并排查看其标杆与待测张量。</translation>
    </message>
    <message>
        <source>Compare two dumps (Session &gt; Compare dumps, Ctrl+D), hunt for the first divergent operation (Session &gt; Hunt, Ctrl+H) or replay a dump (Session &gt; Replay operations) to see an operation&apos;s tensors side by side here.</source>
        <translation>比较两个转储（会话 &gt; 比较转储，Ctrl+D）、定位首个偏离算子（会话 &gt; 定位，Ctrl+H）或重放一个转储（会话 &gt; 重放算子），即可在这里并排查看一个算子的张量。</translation>
    </message>
    <message>
        <source>The operation&apos;s tensor files: its inputs before it ran, its outputs after</source>
        <translation>算子的张量文件：运行前的输入，运行后的输出</translation>
    </message>
    <message>
        <source>File:</source>
        <translation>文件：</translation>
    </message>
</context>
<context>
    <name>TensorInspector</name>
    <message>
        <source>Pick an operation in the tree to see its tensors.</source>
        <translation>在树中选择一个算子以查看其张量。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;, round %2</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;，第 %2 轮</translation>
    </message>
    <message>
        <source>%1 %2%3</source>
        <translation>%1 %2%3</translation>
    </message>
    <message>
        <source> (no payload in the file)</source>
        <translation>（文件中没有数据）</translation>
    </message>
    <message>
        <source>computing statistics...</source>
        <translation>正在计算统计量...</translation>
    </message>
    <message>
        <source>max %1, min %2, mean %3, L2 norm %4 over %5 elements</source>
        <translation>最大值 %1，最小值 %2，均值 %3，L2 范数 %4，共 %5 个元素</translation>
    </message>
    <message>
        <source>%1 NaN, %2 Inf</source>
        <translation>%1 个 NaN，%2 个 Inf</translation>
    </message>
    <message>
        <source> (from the file&apos;s statistics: it holds no values)</source>
        <translation>（来自文件中的统计量：文件不含数值）</translation>
    </message>
    <message>
        <source>Histogram of finite values</source>
        <translation>有限值直方图</translation>
    </message>
</context>
<context>
    <name>TensorSliceModel</name>
    <message>
        <source>element %1</source>
        <translation>元素 %1</translation>
    </message>
</context>
<context>
    <name>UnpairedView</name>
    <message numerus="yes">
        <source>%1 %2: %n tensor(s), round %3</source>
        <translation>
            <numerusform>%1 %2: %n 个张量，轮次 %3</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Pair</source>
        <translation>配对(&amp;P)</translation>
    </message>
    <message>
        <source>Remove pair</source>
        <translation>移除配对</translation>
    </message>
    <message>
        <source>Save mapping...</source>
        <translation>保存映射...</translation>
    </message>
    <message>
        <source>Compare again with these pairs</source>
        <translation>用这些配对重新比较</translation>
    </message>
    <message>
        <source>Pair the golden operation selected on the left with the test operation on the right</source>
        <translation>将左侧选中的标杆算子与右侧的待测算子配对</translation>
    </message>
    <message>
        <source>Save the pairs as a JSON file for llmscope compare --mapping</source>
        <translation>将配对保存为 JSON 文件，供 llmscope compare --mapping 使用</translation>
    </message>
    <message>
        <source>Only in golden:</source>
        <translation>仅在标杆中：</translation>
    </message>
    <message>
        <source>Only in test:</source>
        <translation>仅在待测中：</translation>
    </message>
    <message>
        <source>Pairs made by hand (golden -&gt; test):</source>
        <translation>手动配对（标杆 -&gt; 待测）：</translation>
    </message>
    <message>
        <source>The tensors a comparison cannot pair are listed here.</source>
        <translation>比较中无法配对的张量列在这里。</translation>
    </message>
    <message>
        <source>Every tensor found a partner.</source>
        <translation>所有张量都已配对。</translation>
    </message>
    <message>
        <source>%1 golden and %2 test tensors have no partner (matched %3). Pick an operation on each side and Pair them; the pairs are compared tensor by tensor, round by round.</source>
        <translation>%1 个标杆张量和 %2 个待测张量没有配对（匹配方式：%3）。在两侧各选一个算子并点击配对；配对的算子会逐张量、逐轮比较。</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>无法写入 %1: %2</translation>
    </message>
    <message>
        <source>Save mapping</source>
        <translation>保存映射</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>Saved %1: use it with llmscope compare --mapping %1</source>
        <translation>已保存 %1：可用于 llmscope compare --mapping %1</translation>
    </message>
    <message>
        <source>Could not make a temporary folder for the pairs: %1</source>
        <translation>无法为配对创建临时文件夹：%1</translation>
    </message>
</context>
<context>
    <name>ViewMenu</name>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Find operation</source>
        <translation>查找算子(&amp;F)</translation>
    </message>
    <message>
        <source>Edit -&amp;ids</source>
        <translation>编辑 -ids(&amp;I)</translation>
    </message>
    <message>
        <source>&amp;Refresh inspector</source>
        <translation>刷新检查器(&amp;R)</translation>
    </message>
</context>
<context>
    <name>Workspace</name>
    <message>
        <source>hunt</source>
        <translation>定位</translation>
    </message>
    <message>
        <source>quantization report</source>
        <translation>量化报告</translation>
    </message>
    <message numerus="yes">
        <source>Topology of the opened dump: %n operation(s).</source>
        <translation>
            <numerusform>已打开转储的拓扑：%n 个算子。</numerusform>
        </translation>
    </message>
    <message>
        <source>A program is running: stop it first (Session &gt; Stop, Ctrl+.)</source>
        <translation>已有程序在运行：请先停止它（会话 &gt; 停止，Ctrl+.）</translation>
    </message>
    <message>
        <source>A comparison is running; cancel it first</source>
        <translation>已有比较在进行；请先取消</translation>
    </message>
    <message>
        <source>Could not compare: %1</source>
        <translation>无法比较：%1</translation>
    </message>
    <message>
        <source>the comparison ended after another source was opened; it is not shown</source>
        <translation>比较结束时已打开了另一个来源；不显示其结果</translation>
    </message>
    <message>
        <source>A hunt or report is running; cancel it first</source>
        <translation>定位或报告正在进行，请先取消</translation>
    </message>
    <message>
        <source>A program is running: replay its dump once it has ended</source>
        <translation>程序正在运行：请在其结束后重放其 dump</translation>
    </message>
    <message>
        <source>Spread failed: %1</source>
        <translation>多次运行比对失败：%1</translation>
    </message>
    <message>
        <source>[spread] %1</source>
        <translation>[多次运行比对] %1</translation>
    </message>
    <message>
        <source>Cannot run again with -ids %1: %2</source>
        <translation>无法以 -ids %1 再次运行：%2</translation>
    </message>
    <message>
        <source>(every operation)</source>
        <translation>（所有算子）</translation>
    </message>
    <message>
        <source>[llmscope] Run again, dumping -ids %1 in %2 (the launch&apos;s -er; Session &gt; Launch changes it)</source>
        <translation>[llmscope] 再次运行，在%2中转储 -ids %1（启动时的 -er；可在 会话 &gt; 启动 中修改）</translation>
    </message>
    <message>
        <source>[llmscope] cannot launch: %1</source>
        <translation>[llmscope] 无法启动：%1</translation>
    </message>
    <message>
        <source>Cannot launch: %1</source>
        <translation>无法启动：%1</translation>
    </message>
</context>
</TS>
