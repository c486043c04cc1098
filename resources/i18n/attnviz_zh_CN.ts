<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>attnviz</name>
    <message>
        <location filename="../../attnviz/commands/demo.py" line="41"/>
        <source>  non-parametric {kernel:&lt;13} h=0.5  test MSE {mse:.3f}</source>
        <translation>  非参数 {kernel:&lt;13} h=0.5  测试 MSE {mse:.3f}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/demo.py" line="46"/>
        <source>  parametric     learned w={w:.2f}  loss {before:.1f} -&gt; {after:.1f}  test MSE {mse:.3f}</source>
        <translation>  带参数 学到的 w={w:.2f}  损失 {before:.1f} -&gt; {after:.1f}  测试 MSE {mse:.3f}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/chains.py" line="170"/>
        <source> (key/value head {group} of {groups}, shared by {count} query heads)</source>
        <translation>（第 {group} 个键/值头，共 {groups} 个，由 {count} 个查询头共享）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/eval.py" line="58"/>
        <source> (lines left out: {why})</source>
        <translation>（略去的行：{why}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/attention.py" line="349"/>
        <source> (masked)</source>
        <translation>（已屏蔽）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="449"/>
        <source> (often: out of memory)</source>
        <translation>（通常是内存不足）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="264"/>
        <source> (stopped early)</source>
        <translation>（提前停止）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="233"/>
        <source> (top-k overlap {overlap:.0f} %)</source>
        <translation>（top-k 重合率 {overlap:.0f} %）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/errors.py" line="107"/>
        <source> Details are in {path}.</source>
        <translation>详情见 {path}。</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="144"/>
        <source> or </source>
        <translation> 或 </translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="140"/>
        <source> pairs</source>
        <translation> 个最小对</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="134"/>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="334"/>
        <source># The columns of `{command}`'s files</source>
        <translation># `{command}` 输出文件的各列</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="18"/>
        <source>%(prog)s: error: %(message)s
</source>
        <translation>%(prog)s：错误：%(message)s
</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="129"/>
        <source>&amp;About attnviz</source>
        <translation>关于 attnviz(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="77"/>
        <source>&amp;Back</source>
        <translation>后退(&amp;B)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="121"/>
        <source>&amp;Book figures…</source>
        <translation>书中图表(&amp;B)…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="204"/>
        <source>&amp;Copy heatmap</source>
        <translation>复制热图(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="103"/>
        <source>&amp;Decode</source>
        <translation>解码(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="202"/>
        <source>&amp;Export heatmap…</source>
        <translation>导出热图(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="83"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="120"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="128"/>
        <source>&amp;Keyboard shortcuts…</source>
        <translation>键盘快捷键(&amp;K)…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/language.py" line="82"/>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="188"/>
        <source>&amp;Larger text</source>
        <translation>放大文字(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="86"/>
        <source>&amp;Lecture view</source>
        <translation>课堂视图(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="192"/>
        <source>&amp;Normal text size</source>
        <translation>正常文字大小(&amp;N)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/hf_dialog.py" line="101"/>
        <source>&amp;Open</source>
        <translation>打开(&amp;O)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="68"/>
        <source>&amp;Open checkpoint…</source>
        <translation>打开检查点(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="109"/>
        <source>&amp;Play or pause</source>
        <translation>播放或暂停(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="184"/>
        <source>&amp;Presentation mode</source>
        <translation>演示模式(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="74"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="97"/>
        <source>&amp;Recent files</source>
        <translation>最近打开的文件(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="81"/>
        <source>&amp;Reset</source>
        <translation>重置(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="69"/>
        <source>&amp;Save session…</source>
        <translation>保存会话(&amp;S)…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="75"/>
        <source>&amp;Step</source>
        <translation>单步(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="125"/>
        <source>&amp;User guide…</source>
        <translation>用户指南(&amp;U)…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="111"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="247"/>
        <source>'checkpoint_sha256' is not a SHA-256 (64 hex digits)</source>
        <translation>'checkpoint_sha256' 不是 SHA-256（64 位十六进制数字）</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="286"/>
        <source>'heads_off' must name heads as kind:layer.head, comma-separated (e.g. cross:2.1,enc-self:1.3)</source>
        <translation>'heads_off' 必须以“种类:层.头”的形式列出头，用逗号分隔（例如 cross:2.1,enc-self:1.3）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/compare.py" line="35"/>
        <source>(choose a model)</source>
        <translation>（选择模型）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="242"/>
        <location filename="../../attnviz/gui/panels/train.py" line="624"/>
        <location filename="../../attnviz/gui/panels/train.py" line="600"/>
        <source>(nothing)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="413"/>
        <source>(press Step or F10)</source>
        <translation>（按“单步”或 F10）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="171"/>
        <source>(score &lt;b&gt;{score}&lt;/b&gt;, log p {log_prob}, T = {length})</source>
        <translation>（评分 &lt;b&gt;{score}&lt;/b&gt;，log p {log_prob}，T = {length}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="170"/>
        <source>(score &lt;b&gt;{score}&lt;/b&gt;, log p {log_prob}, T = {length}, ended)</source>
        <translation>（评分 &lt;b&gt;{score}&lt;/b&gt;，log p {log_prob}，T = {length}，已结束）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/positional.py" line="184"/>
        <location filename="../../attnviz/training/data.py" line="85"/>
        <source>, </source>
        <comment>list separator</comment>
        <translation>，</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="230"/>
        <source>, agreement {agreement:.0f} %</source>
        <translation>，对齐一致率 {agreement:.0f}%</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/status_bar.py" line="150"/>
        <source>, validation BLEU {bleu}</source>
        <translation>，验证集 BLEU {bleu}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/status_bar.py" line="147"/>
        <source>, validation BLEU {greedy:.2f} greedy, {beam:.2f} with beam 4 (models/MODELS.md)</source>
        <translation>，验证集 BLEU：贪心 {greedy:.2f}，束宽 4 为 {beam:.2f}（models/MODELS.md）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="466"/>
        <source>--all-heads shows every layer and head: leave out --layer and --head</source>
        <translation>--all-heads 显示所有层和头：请去掉 --layer 和 --head</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="302"/>
        <location filename="../../attnviz/commands/train.py" line="308"/>
        <source>--arch is nested too deeply; give a flat JSON object of settings</source>
        <translation>--arch 嵌套过深；请给出一个扁平的设置 JSON 对象</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="306"/>
        <source>--arch is not valid JSON ({reason})</source>
        <translation>--arch 不是有效的 JSON（{reason}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="310"/>
        <source>--arch must be a JSON object, e.g. '{"num_decoder_layers": 3}'</source>
        <translation>--arch 必须是 JSON 对象，例如 '{"num_decoder_layers": 3}'</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="313"/>
        <source>--arch: {kind} has no setting {unknown}; known: {known}</source>
        <translation>--arch：{kind} 没有设置 {unknown}；已知设置：{known}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train_images.py" line="31"/>
        <source>--augment goes with an image model (attnviz train vit)</source>
        <translation>--augment 只用于图像模型（attnviz train vit）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="426"/>
        <source>--bandwidth must be from {low:g} to {high:g} (as the window's Bandwidth h), got {bandwidth}</source>
        <translation>--bandwidth 必须在 {low:g} 到 {high:g} 之间（同窗口中的带宽 h），实际为 {bandwidth}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/shared.py" line="118"/>
        <source>--batch-size must be from 1 to 10,000,000 tokens, got {value}</source>
        <translation>--batch-size 必须在 1 到 10,000,000 个词元之间，实际为 {value}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/shared.py" line="98"/>
        <source>--beam must be from 1 to {most}, got {beam}</source>
        <translation>--beam 必须在 1 到 {most} 之间，实际为 {beam}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/classify.py" line="51"/>
        <source>--data measures the test set: give it without image files</source>
        <translation>--data 用于测量测试集：请不要同时给出图像文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/shared.py" line="258"/>
        <source>--data {data} is one image: give a text file of sentences, or for an image model a folder of images</source>
        <translation>--data {data} 是单张图像：请给出句子的文本文件，或对图像模型给出一个图像文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="294"/>
        <source>--data {path} is a pipe, which one process alone can read: under --processes give a file</source>
        <translation>--data {path} 是管道，只能由一个进程读取：使用 --processes 时请给出文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train_images.py" line="41"/>
        <source>--data: give the folder with Fashion-MNIST's four idx files (not found: {path})</source>
        <translation>--data：请给出存放 Fashion-MNIST 四个 idx 文件的文件夹（未找到：{path}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/classify.py" line="118"/>
        <source>--data: this model does not read Fashion-MNIST (28 × 28 grey images of its ten classes)</source>
        <translation>--data：此模型不读取 Fashion-MNIST（其十个类别的 28 × 28 灰度图像）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="101"/>
        <source>--documents reads --data, not a --task</source>
        <translation>--documents 读取 --data，而不是 --task</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/live_kernel.py" line="30"/>
        <source>--epochs must be from 1 to {most:,}</source>
        <translation>--epochs 必须在 1 到 {most:,} 之间</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="411"/>
        <source>--flipbook shows a decoding: {checkpoint} is a {kind} model, which does not translate</source>
        <translation>--flipbook 显示一次解码：{checkpoint} 是 {kind} 模型，不做翻译</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="84"/>
        <source>--flipbook: 1-based head (default 1)</source>
        <translation>--flipbook：头的编号，从 1 起（默认 1）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="83"/>
        <source>--flipbook: 1-based layer (default 1)</source>
        <translation>--flipbook：层的编号，从 1 起（默认 1）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="86"/>
        <source>--flipbook: every layer and head, small multiples</source>
        <translation>--flipbook：所有层和头，并排小图</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="81"/>
        <source>--flipbook: which attention, cross or dec-self (default cross); --prompt-map of an encoder–decoder folder: enc-self (default), or with --target dec-self or cross</source>
        <translation>--flipbook：哪种注意力，cross 或 dec-self（默认 cross）；编码器－解码器文件夹的 --prompt-map：enc-self（默认），或配合 --target 用 dec-self 或 cross</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain_images.py" line="52"/>
        <source>--heldout picks sentences from a TSV; --data {data} is a folder of images</source>
        <translation>--heldout 从 TSV 文件中挑选句子；--data {data} 是一个图像文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="272"/>
        <source>--ig-steps must be from 1 to {most}, got {steps}</source>
        <translation>--ig-steps 必须在 1 到 {most} 之间，实际为 {steps}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="155"/>
        <source>--image: {checkpoint} is a {kind} model, which reads no images</source>
        <translation>--image：{checkpoint} 是 {kind} 模型，不读取图像</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="424"/>
        <source>--kernel must be one of: {names}</source>
        <translation>--kernel 必须是以下之一：{names}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="126"/>
        <source>--kind enc-self does not change from step to step: --flipbook shows cross or dec-self</source>
        <translation>--kind enc-self 不随步骤变化：--flipbook 展示 cross 或 dec-self</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="247"/>
        <source>--kind {kind} reads a target: give the translation with --target</source>
        <translation>--kind {kind} 需要读取目标：请用 --target 给出译文</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="456"/>
        <source>--kind {name}: this model has no {kind}</source>
        <translation>--kind {name}：此模型没有{kind}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/live.py" line="83"/>
        <source>--learned must be more than 0 and at most 100 (%)</source>
        <translation>--learned 必须大于 0 且不超过 100（%）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="270"/>
        <location filename="../../attnviz/commands/heads.py" line="98"/>
        <location filename="../../attnviz/commands/patch.py" line="101"/>
        <source>--limit must be at least 1, got {limit}</source>
        <translation>--limit 至少为 1，实际为 {limit}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/live.py" line="87"/>
        <source>--lr must be more than 0 and at most 1</source>
        <translation>--lr 必须大于 0 且不超过 1</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/live_kernel.py" line="33"/>
        <source>--lr must be more than 0 and at most 10</source>
        <translation>--lr 必须大于 0 且不超过 10</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/shared.py" line="144"/>
        <source>--mask-heads names no head: give kind:layer.head, e.g. cross:2.1,enc:1.3</source>
        <translation>--mask-heads 没有指定任何头：请给出 种类:层.头，例如 cross:2.1,enc:1.3</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/patch.py" line="187"/>
        <source>--measures: {names} is not a measure (choose from {choices}, comma-separated)</source>
        <translation>--measures：{names} 不是可计算的量（请从 {choices} 中选择，以逗号分隔）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="256"/>
        <source>--methods: unknown {names}; choose from {methods}</source>
        <translation>--methods：未知的方法 {names}；可选 {methods}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/live.py" line="85"/>
        <source>--minutes must be more than 0 and at most 1,440</source>
        <translation>--minutes 必须大于 0 且不超过 1,440</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="131"/>
        <source>--node-rank must be from 0 to {most} (--nodes {nodes}), got {rank}</source>
        <translation>--node-rank 必须在 0 到 {most} 之间（--nodes {nodes}），收到的是 {rank}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="129"/>
        <source>--nodes must be at least 1, got {nodes}</source>
        <translation>--nodes 至少为 1，收到的是 {nodes}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="140"/>
        <source>--nodes {nodes}: give every machine --rendezvous HOST:PORT of machine 0</source>
        <translation>--nodes {nodes}：请给每台机器加上 --rendezvous HOST:PORT（0 号机器的地址）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="98"/>
        <source>--nodes, --node-rank and --rendezvous shape a job: add --processes N</source>
        <translation>--nodes、--node-rank 和 --rendezvous 用于组成多进程作业：请加上 --processes N</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="108"/>
        <source>--processes must be at least 1, got {count}</source>
        <translation>--processes 至少为 1，收到的是 {count}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="117"/>
        <source>--processes {count}: this machine has {cores} CPU core(s), and more processes than cores only wait for each other: give at most {cores}</source>
        <translation>--processes {count}：本机只有 {cores} 个 CPU 核心，进程多于核心只会互相等待：最多给 {cores}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="114"/>
        <source>--processes {count}: this machine has {gpus} GPU(s), and each process takes one: give at most {gpus}, or run on the CPU (--device cpu)</source>
        <translation>--processes {count}：本机有 {gpus} 块 GPU，每个进程占用一块：最多给 {gpus}，或在 CPU 上运行（--device cpu）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="235"/>
        <source>--prompt-map computes the maps of a Hugging Face decoder-only, encoder-only or encoder–decoder model on demand; {checkpoint} is a {kind} model</source>
        <translation>--prompt-map 按需计算 Hugging Face 仅解码器、仅编码器或编码器－解码器模型的图；{checkpoint} 是 {kind} 模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="94"/>
        <source>--prompt-map of an encoder–decoder folder: the translation its decoder reads (teacher-forced: its start token, then this text), for --kind dec-self or cross</source>
        <translation>编码器－解码器文件夹的 --prompt-map：其解码器读取的译文（强制教学：先是起始词元，再是此文本），用于 --kind dec-self 或 cross</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="430"/>
        <source>--query must be a finite number, got {query}</source>
        <translation>--query 必须是有限数，实际为 {query}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="137"/>
        <source>--rendezvous must be HOST:PORT, got {text!r}</source>
        <translation>--rendezvous 必须是 HOST:PORT，收到的是 {text!r}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="152"/>
        <source>--rendezvous {address}: cannot listen there ({error})</source>
        <translation>--rendezvous {address}：无法在此监听（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="261"/>
        <source>--rendezvous {address}: no attnviz job's rendezvous there ({error})</source>
        <translation>--rendezvous {address}：那里没有 attnviz 作业的会合点（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="56"/>
        <location filename="../../attnviz/commands/processes.py" line="240"/>
        <source>--rendezvous {address}: no such host ({error})</source>
        <translation>--rendezvous {address}：没有这台主机（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="67"/>
        <source>--rendezvous {address}: this machine (--node-rank 0) cannot listen there ({error}): give one of its own addresses</source>
        <translation>--rendezvous {address}：本机（--node-rank 0）无法在该地址监听（{error}）：请给出本机自己的地址</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/train.py" line="138"/>
        <location filename="../../attnviz/training/vision.py" line="153"/>
        <source>--resume: {path} is another run's: {why}</source>
        <translation>--resume：{path} 属于另一次运行：{why}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="96"/>
        <source>--seeds must be from 1 to {most}, got {seeds}</source>
        <translation>--seeds 必须在 1 到 {most} 之间，实际为 {seeds}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="380"/>
        <source>--session names the checkpoint and the sentence: leave out {option}</source>
        <translation>--session 已指定检查点和句子：请去掉 {option}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="366"/>
        <location filename="../../attnviz/commands/export_images.py" line="35"/>
        <source>--session switches its own heads off ({heads}): leave out --mask-heads</source>
        <translation>--session 会关闭它自己保存的头（{heads}）：请去掉 --mask-heads</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="112"/>
        <source>--step counts from 1, got {number}</source>
        <translation>--step 从 1 开始计数，实际为 {number}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="110"/>
        <source>--step must be a step number or 'all', got {text!r}</source>
        <translation>--step 必须是步序号或 'all'，实际为 {text!r}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="196"/>
        <source>--step {step}: the decoding of this sentence has only {count} steps</source>
        <translation>--step {step}：此句子的解码只有 {count} 步</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="418"/>
        <source>--step: a {kind} model has no decoding steps</source>
        <translation>--step：{kind} 模型没有解码步骤</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/options.py" line="50"/>
        <location filename="../../attnviz/training/vision.py" line="75"/>
        <source>--stop-after {stop} is past the last epoch (--epochs {epochs})</source>
        <translation>--stop-after {stop} 超过了最后一个迭代周期（--epochs {epochs}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/epochs.py" line="49"/>
        <source>--stop-after {stop}: the run in {path} has already finished epoch {epoch}</source>
        <translation>--stop-after {stop}：{path} 中的运行已完成第 {epoch} 个迭代周期</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="249"/>
        <source>--target is read by the decoder: add --kind dec-self or --kind cross</source>
        <translation>--target 由解码器读取：请加上 --kind dec-self 或 --kind cross</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="124"/>
        <source>--target is the decoder's text of --prompt-map; add --prompt-map</source>
        <translation>--target 是 --prompt-map 中解码器读取的文本；请加上 --prompt-map</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/alignment.py" line="120"/>
        <source>--task compares cross-attention with the task's alignment: a {kind} model has none</source>
        <translation>--task 比较的是编码器－解码器注意力与任务的对齐：{kind} 模型没有这种注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/tasks.py" line="127"/>
        <source>--task ioi is for a Hugging Face decoder-only folder (GPT-2, Llama, Qwen, Gemma, Mistral …) that reads English</source>
        <translation>--task ioi 用于读英语的 Hugging Face 仅解码器文件夹（GPT-2、Llama、Qwen、Gemma、Mistral 等）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/alignment.py" line="83"/>
        <source>--task takes at most {most:,} held-out inputs (the {task} task has about {count:,} of {total:,} distinct inputs): give --limit {most} or fewer</source>
        <translation>--task 最多取 {most:,} 个留出输入（{task} 任务在 {total:,} 个不同输入中约有 {count:,} 个留出输入）：请给出不大于 {most} 的 --limit</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="200"/>
        <source>--task trains {kinds}; {kind} trains on its own data (leave out --task)</source>
        <translation>--task 仅适用于 {kinds}；{kind} 用自己的数据训练（请去掉 --task）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/tasks.py" line="152"/>
        <source>--task {task} is for a model that translates English into French</source>
        <translation>--task {task} 用于把英语译成法语的模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="160"/>
        <source>--task {task} trains {kinds} (attnviz train {kinds} --task {task} --data FILE)</source>
        <translation>--task {task} 用于训练 {kinds}（attnviz train {kinds} --task {task} --data FILE）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="204"/>
        <source>--task {task} trains {kinds}; {kind} learns {tasks}</source>
        <translation>--task {task} 训练的是 {kinds}；{kind} 学习的是 {tasks}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/tasks.py" line="150"/>
        <source>--task {task}: no such task (tasks: {tasks})</source>
        <translation>--task {task}：没有这个任务（任务：{tasks}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/tasks.py" line="77"/>
        <source>--task {task}: the model's vocabulary leaves {count} pairs (at least {least} are needed)</source>
        <translation>--task {task}：模型的词表只留下 {count} 对（至少需要 {least} 对）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="74"/>
        <source>--task: snapshots of the probe's map and the scores (default 30)</source>
        <translation>--task：探针输入的注意力图和得分的快照数（默认 30）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="80"/>
        <source>--task: stop once held-out exact match (an image task: accuracy) is at least PERCENT at 3 evaluations in a row, and save (default 99; 0: train every epoch)</source>
        <translation>--task：一旦留出集完全匹配率（图像任务：准确率）连续 3 次评估都不低于 PERCENT，就停止并保存（默认 99；0：训练完所有轮）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="77"/>
        <source>--task: the input whose attention map is recorded (default: the task's own; an image task: the seed of its probe image, 0)</source>
        <translation>--task：记录其注意力图的输入（默认：任务自带的输入；图像任务：其探针图像的种子，0）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="72"/>
        <source>--task: the model's size (default small; --arch changes single settings)</source>
        <translation>--task：模型大小（默认 small；--arch 可改单项设置）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="161"/>
        <location filename="../../attnviz/commands/export.py" line="251"/>
        <source>--text is empty: give the sentence whose attention to export</source>
        <translation>--text 为空：请给出要导出其注意力的句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/shared.py" line="157"/>
        <source>--text: bytes that are not UTF-8 were replaced by U+FFFD</source>
        <translation>--text：非 UTF-8 的字节已替换为 U+FFFD</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="414"/>
        <source>--text: {checkpoint} is a {kind} model, which does not translate; choose its view with --kernel, --bandwidth and --query</source>
        <translation>--text：{checkpoint} 是 {kind} 模型，不做翻译；请用 --kernel、--bandwidth 和 --query 选择其视图</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="514"/>
        <source>--training needs --checkpoint: a model trained by attnviz train --task or the Train dock</source>
        <translation>--training 需要 --checkpoint：由 attnviz train --task 或训练面板训练的模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export_images.py" line="32"/>
        <source>--{option} does not go with an image model</source>
        <translation>--{option} 不能用于图像模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="283"/>
        <source>0 to 1: the Attention dock's scale, a uniform row (each patch 1/n) stays dark. 0 to the largest: the largest weight on show is bright yellow, however small (the title says how many times a uniform share it is)</source>
        <translation>0 到 1：与注意力面板相同的刻度，均匀的一行（每个图块 1/n）保持暗色。0 到最大值：所显示的最大权重无论多小都画成亮黄色（标题说明它是均匀份额的多少倍）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="298"/>
        <source>0…7 in binary: the lower bit alternates fastest, like PE's high-frequency columns</source>
        <translation>0…7 的二进制表示：越低的位交替越快，就像位置编码中的高频列</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="287"/>
        <source>1 = greedy decoding; more = beam search with that many hypotheses</source>
        <translation>1 = 贪心解码；更大 = 保留相应数量候选序列的束搜索</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="64"/>
        <source>1-based step to export, or 'all' (default: the last step)</source>
        <translation>要导出的步（从 1 起），或 'all'（默认：最后一步）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train_images.py" line="25"/>
        <source>; an image model: the folder of Fashion-MNIST's four idx files</source>
        <translation>；图像模型：存放 Fashion-MNIST 四个 idx 文件的文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="274"/>
        <source>; BLEU {bleu:.2f} with every head, with {half} of {count} pruned: {important:.2f} (least important first), {random:.2f} (random)</source>
        <translation>；全部头时 BLEU {bleu:.2f}，剪去 {count} 个头中的 {half} 个后：{important:.2f}（先剪最不重要的），{random:.2f}（随机）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/patch.py" line="174"/>
        <source>; Kendall τ of attribution patching against patching {tau:.2f} [{tau_low:.2f}, {tau_high:.2f}]</source>
        <translation>；归因修补与修补的 Kendall τ 为 {tau:.2f} [{tau_low:.2f}, {tau_high:.2f}]</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/patch.py" line="170"/>
        <source>; most restored by {head}: {share:.2f} [{low:.2f}, {high:.2f}]</source>
        <translation>；恢复最多的是 {head}：{share:.2f} [{low:.2f}, {high:.2f}]</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="542"/>
        <source>&lt;b&gt;layer {layer}, head {head}&lt;/b&gt; — </source>
        <translation>&lt;b&gt;第 {layer} 层，第 {head} 个头&lt;/b&gt; — </translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="152"/>
        <source>&lt;eos&gt; (also `[SEP]`), &lt;bos&gt; (also `[CLS]`) or punctuation</source>
        <translation>&lt;eos&gt;（也包括 `[SEP]`）、&lt;bos&gt;（也包括 `[CLS]`）或 punctuation（标点）</translation>
    </message>
    <message>
        <location filename="../../attnviz/xcb_check.py" line="81"/>
        <source>[attnviz] installing {packages} (Qt's X11 platform plugin needs them)</source>
        <translation>[attnviz] 正在安装 {packages}（Qt 的 X11 平台插件需要它们）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/image_tasks.py" line="171"/>
        <source>[CLS] on the shape's patches</source>
        <translation>[CLS] 落在形状所在的图像块上</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="231"/>
        <source>[CLS] over {image}, last layer, heads averaged, in two models</source>
        <translation>两个模型中 [CLS] 在 {image} 上的注意力，最后一层，各头平均</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="509"/>
        <source>[CLS] over {image}, layer by layer: attention (heads averaged), then rollout</source>
        <translation>{image} 上的 [CLS]，逐层：注意力（各头平均），然后是注意力展开（rollout）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="26"/>
        <source>[CLS] rollout · {layers} layers · {heads} heads averaged</source>
        <translation>[CLS] 的注意力展开 · {layers} 层 · {heads} 个头取平均</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="539"/>
        <source>[CLS] share {value:.1%}</source>
        <translation>[CLS] 占比 {value:.1%}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="676"/>
        <source>[CLS]'s attention over the image, layer by layer</source>
        <translation>[CLS] 在图像上的注意力，逐层</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="211"/>
        <source>`first` (the first position, whatever token it holds) or a special token of the tokenizer (`[CLS]`, `[SEP]`, `&lt;|endoftext|&gt;`, `&lt;s&gt;` …; attnviz's own models and `attnviz explain`: `&lt;bos&gt;`, `&lt;eos&gt;`, `&lt;pad&gt;`, `&lt;unk&gt;`, `[CLS]`, `[SEP]`); a class no query of the bin could see (a causal row sees the keys up to its own position) has no row</source>
        <translation>`first`（第一个位置，无论其上是什么词元）或分词器的一个特殊词元（`[CLS]`、`[SEP]`、`&lt;|endoftext|&gt;`、`&lt;s&gt;` …；attnviz 自己的模型和 `attnviz explain`：`&lt;bos&gt;`、`&lt;eos&gt;`、`&lt;pad&gt;`、`&lt;unk&gt;`、`[CLS]`、`[SEP]`）；该区间内没有任何查询能看到的类别（因果的行只看到直到其自身位置的键）不写行</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/shared.py" line="104"/>
        <source>a .safetensors checkpoint (default: the shipped Transformer)</source>
        <translation>.safetensors 检查点（默认：内置的 Transformer）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/safe_output.py" line="33"/>
        <location filename="../../attnviz/unopenable.py" line="22"/>
        <source>a block device</source>
        <translation>块设备</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/safe_output.py" line="33"/>
        <location filename="../../attnviz/unopenable.py" line="21"/>
        <source>a character device</source>
        <translation>字符设备</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/patch.py" line="50"/>
        <source>a checkpoint (.safetensors) or a Hugging Face model folder (default: the shipped Transformer)</source>
        <translation>检查点（.safetensors）或 Hugging Face 模型文件夹（默认：随附的 Transformer）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="55"/>
        <source>a checkpoint (.safetensors; default: the shipped Transformer); a kernel-regression one exports its fit</source>
        <translation>检查点（.safetensors；默认：内置的 Transformer）；核回归检查点导出其拟合结果</translation>
    </message>
    <message>
        <location filename="../../attnviz/app.py" line="50"/>
        <source>a checkpoint or saved session, as the desktop entry passes it: a path that cannot be opened is explained in the window</source>
        <translation>检查点或已保存的会话，由桌面启动项传入：无法打开的路径会在窗口中说明原因</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/safe_output.py" line="123"/>
        <source>a file</source>
        <translation>文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="607"/>
        <source>A file of documents</source>
        <translation>文档文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="228"/>
        <source>A file of documents: one a line, each read whole in one pass (up to the model's positions); the atlas then has the sinks by the query's position</source>
        <translation>文档文件：每行一篇，每篇一次前向传播整篇读入（至多到模型的位置数）；图谱随之给出按查询位置划分的注意力汇聚（sink）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="226"/>
        <source>A file of documents…</source>
        <translation>文档文件…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="500"/>
        <source>A file of pairs</source>
        <translation>最小对文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="298"/>
        <source>A file of pairs…</source>
        <translation>最小对文件…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="615"/>
        <source>A file of sentences</source>
        <translation>句子文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="224"/>
        <source>A file of sentences…</source>
        <translation>句子文件…</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/images.py" line="55"/>
        <location filename="../../attnviz/core/safe_output.py" line="32"/>
        <source>a folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/figure_files.py" line="47"/>
        <source>a folder has that name</source>
        <translation>已有同名文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="605"/>
        <source>A folder of images</source>
        <translation>一个图像文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="220"/>
        <source>A folder of images…</source>
        <translation>一个图像文件夹…</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="267"/>
        <source>a head where attribution patching and patching (denoise) differ by more than 0.1 of the logit difference, the largest difference first (written when --measures holds both atp and denoise)</source>
        <translation>归因修补与修补（denoise）相差超过 logit 差 0.1 的头，差别最大的在前（仅当 --measures 同时包含 atp 和 denoise 时写出）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="89"/>
        <source>a Hugging Face decoder-only, encoder-only or encoder–decoder folder: write one map of the text's attention (--layer, --head; default 1, 1; --kind, --target), computed on demand from the queries and keys of one forward pass, the others never made; the text may be as long as the model's positions (up to {most:,} tokens)</source>
        <translation>Hugging Face 仅解码器、仅编码器或编码器－解码器文件夹：写出文本注意力的一张图（--layer、--head；默认 1、1；--kind、--target），由一次前向传播的查询和键按需计算，其他图从不生成；文本可长达模型的位置数（最多 {most:,} 个词元）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="78"/>
        <source>a Hugging Face language model (decoder-only or encoder-only; an encoder-only one always): read --data as one document a line, cut to the model's positions (at most {most:,} tokens), one forward pass each, no decoding; heads.csv's statistics and sinks_by_position.csv, no importance</source>
        <translation>Hugging Face 语言模型（仅解码器或仅编码器；仅编码器模型总是如此）：把 --data 读作每行一篇文档，截断到模型的位置数（至多 {most:,} 个词元），每篇一次前向计算，不解码；输出 heads.csv 的统计量和 sinks_by_position.csv，不计算重要性</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/status_bar.py" line="153"/>
        <source>a Hugging Face {architecture} model</source>
        <translation>Hugging Face {architecture} 模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="696"/>
        <source>A learned sink (gpt-oss): a logit per head that lets a query attend to nothing</source>
        <translation>学到的汇聚（gpt-oss）：每个头一个对数几率，让查询可以不关注任何键</translation>
    </message>
    <message>
        <location filename="../../attnviz/modern_gallery.py" line="161"/>
        <source>A learned sink: each head's own logit joins every row's softmax and takes its share (the last column) — weight a query may put nowhere</source>
        <translation>学到的汇聚：每个头自己的对数几率加入每一行的 softmax 并分走一份（最后一列）——查询可以不放在任何键上的权重</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/hf_dialog.py" line="79"/>
        <source>A model folder on disk (config.json, the weights, the tokenizer's files: what save_pretrained writes), or a model already in your Hugging Face cache ({cache}). Nothing is downloaded.</source>
        <translation>磁盘上的模型文件夹（config.json、权重、分词器文件：即 save_pretrained 写出的内容），或已在你的 Hugging Face 缓存（{cache}）中的模型。不会下载任何内容。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/main_window.py" line="189"/>
        <source>A model is training: attnviz restarts in the new language once you stop it or it ends, and you restart it.</source>
        <translation>模型正在训练：请在训练停止或结束后再重启 attnviz，以使用新的语言。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/safe_output.py" line="32"/>
        <location filename="../../attnviz/unopenable.py" line="20"/>
        <source>a named pipe (FIFO)</source>
        <translation>命名管道（FIFO）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="160"/>
        <source>a padded row of a decoder-only model's batch: recompute its sentence alone</source>
        <translation>这是仅解码器模型批量中的填充行：请单独重新计算该句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="60"/>
        <source>a saved session (File ▸ Save session): its model, sentence, forced tokens, step and view</source>
        <translation>已保存的会话（文件 ▸ 保存会话）：其模型、句子、强制的词元、步和视图</translation>
    </message>
    <message>
        <location filename="../../attnviz/app.py" line="44"/>
        <source>a saved session to open (File ▸ Save session)</source>
        <translation>要打开的已保存会话（文件 ▸ 保存会话）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/safe_output.py" line="34"/>
        <location filename="../../attnviz/unopenable.py" line="23"/>
        <source>a socket</source>
        <translation>套接字</translation>
    </message>
    <message>
        <location filename="../../attnviz/unopenable.py" line="23"/>
        <source>a socket cannot be read as a file</source>
        <translation>套接字不能作为文件读取</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/safe_output.py" line="34"/>
        <source>a symbolic link</source>
        <translation>符号链接</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="137"/>
        <source>a training flip-book is a picture: export it on a machine where Qt starts</source>
        <translation>训练翻页动画是图片：请在能启动 Qt 的机器上导出</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="86"/>
        <source>A transformers model folder, or one in your Hugging Face cache</source>
        <translation>一个 Hugging Face 模型文件夹，或你的 Hugging Face 缓存中的模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="57"/>
        <source>a translation checkpoint (.safetensors) or a Hugging Face model folder (default: the shipped Transformer)</source>
        <translation>翻译检查点（.safetensors）或 Hugging Face 模型文件夹（默认：内置的 Transformer）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="257"/>
        <source>a translation model's target tokens fed to both runs before the step read (`none`: the first step; always `none` for other models)</source>
        <translation>翻译模型在读取的步骤之前输入两次运行的目标词元（`none`：第一步；其他模型总是 `none`）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="674"/>
        <source>A ViT reads [CLS] and the image's patches as one sequence</source>
        <translation>ViT 把 [CLS] 和图像的各个图块当作一个序列读取</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/text.py" line="91"/>
        <source>a vocabulary must not repeat a token</source>
        <translation>词表中不能有重复的词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/text.py" line="89"/>
        <source>a vocabulary must start with {tokens}</source>
        <translation>词表必须以 {tokens} 开头</translation>
    </message>
    <message>
        <location filename="../../attnviz/unopenable.py" line="22"/>
        <source>a whole disk is not an attnviz file</source>
        <translation>整块磁盘不是 attnviz 文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/computation.py" line="62"/>
        <source>a: the input of the query {token!r}</source>
        <translation>a：查询 {token!r} 的输入</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="266"/>
        <source>About attnviz</source>
        <translation>关于 attnviz</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/image_tasks.py" line="101"/>
        <location filename="../../attnviz/gui/panels/train.py" line="51"/>
        <source>accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="274"/>
        <source>additive (Bahdanau) scoring: a(q, k) = w_vᵀ tanh(W_q q + W_k k)</source>
        <translation>加性（Bahdanau）评分：a(q, k) = w_vᵀ tanh(W_q q + W_k k)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="645"/>
        <source>Additive attention on the toy example</source>
        <translation>小例子上的加性注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="270"/>
        <source>Additive attention on the toy: weights 1/2 and 1/6</source>
        <translation>小例子上的加性注意力：权重为 1/2 和 1/6</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="139"/>
        <source>After the last step, play the next layer's map from the first step</source>
        <translation>最后一步之后，从第一步起播放下一层的注意力图</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="575"/>
        <source>agreement</source>
        <translation>对齐一致率</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="46"/>
        <source>agreement (fatigué/fatiguée)</source>
        <translation>性数配合（fatigué/fatiguée）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/patching.py" line="53"/>
        <source>agreement (y = x)</source>
        <translation>一致（y = x）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="236"/>
        <source>agreement with the task's alignment</source>
        <translation>与任务对齐的一致率</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="26"/>
        <location filename="../../attnviz/gui/panels/train.py" line="93"/>
        <source>agreement {percent:.0f} %</source>
        <translation>对齐一致率 {percent:.0f}%</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="89"/>
        <source>alignment agreement</source>
        <translation>对齐一致率</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="32"/>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/attention.py" line="76"/>
        <location filename="../../attnviz/gui/panels/image.py" line="286"/>
        <source>All heads</source>
        <translation>所有头</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="472"/>
        <location filename="../../attnviz/figures/attention.py" line="243"/>
        <source>all heads</source>
        <translation>所有头</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="123"/>
        <source>All heads on</source>
        <translation>打开所有头</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="177"/>
        <source>always `tokens`</source>
        <translation>总是 `tokens`</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="17"/>
        <source>ambiguous option: %(option)s could match %(matches)s</source>
        <translation>选项有歧义：%(option)s 可匹配 %(matches)s</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/to_hf.py" line="18"/>
        <source>an attnviz Transformer checkpoint (default: the shipped one)</source>
        <translation>attnviz 的 Transformer 检查点（默认：内置的）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="51"/>
        <source>an attnviz translation checkpoint (.safetensors), a Hugging Face decoder-only folder (GPT-2, Llama, Qwen, Gemma, Mistral …), or an image model with a folder of images as --data</source>
        <translation>attnviz 的翻译模型检查点（.safetensors）、Hugging Face 仅解码器模型文件夹（GPT-2、Llama、Qwen、Gemma、Mistral 等），或一个图像模型（此时 --data 为图像文件夹）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/encoder_only.py" line="141"/>
        <source>an encoder-only model has no {kind}</source>
        <translation>仅编码器模型没有{kind}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/fill_mask.py" line="21"/>
        <source>an encoder-only model: models/encoder-only.safetensors or a Hugging Face BERT folder</source>
        <translation>仅编码器模型：models/encoder-only.safetensors 或 Hugging Face BERT 文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="89"/>
        <source>An image for the image model on show (Ctrl+I; or drop it on the window)</source>
        <translation>为当前的图像模型打开一张图像（Ctrl+I；或把图像拖到窗口上）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="146"/>
        <source>an image model's run, in place of `tokens`: the images averaged</source>
        <translation>图像模型的运行中代替 `tokens`：参与平均的图像数</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="127"/>
        <source>an image model's run, in place of `tokens`: the images where both rows have an order</source>
        <translation>图像模型的运行中代替 `tokens`：两行都有次序的图像数</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/classify.py" line="24"/>
        <source>an image model: models/vit.safetensors</source>
        <translation>图像模型：models/vit.safetensors</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train_images.py" line="19"/>
        <source>an image model: train on random crops (padding 2) and mirror images of the training images (default: the images as they are)</source>
        <translation>图像模型：用训练图像的随机裁剪（填充 2）和镜像进行训练（默认：使用原图）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/text.py" line="191"/>
        <source>and {count:,} more</source>
        <translation>以及另外 {count:,} 个</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/images.py" line="28"/>
        <source>Ankle boot</source>
        <translation>短靴</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="512"/>
        <source>answer positions</source>
        <translation>回答位置</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/hf_dialog.py" line="25"/>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="13"/>
        <source>argument %(argument_name)s: %(message)s</source>
        <translation>参数 %(argument_name)s：%(message)s</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="604"/>
        <source>At step {step:,} the model answers {probe} with {answer}</source>
        <translation>第 {step:,} 步时，模型对 {probe} 的回答是 {answer}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="602"/>
        <source>At step {step:,} the model answers {probe} with {answer} (right: {right})</source>
        <translation>第 {step:,} 步时，模型对 {probe} 的回答是 {answer}（正确答案：{right}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="628"/>
        <source>At step {step:,} the model calls probe image {seed} a {answer}</source>
        <translation>第 {step:,} 步时，模型把探针图像 {seed} 认作{answer}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="630"/>
        <source>At step {step:,} the model calls probe image {seed} a {answer} (right: {right})</source>
        <translation>第 {step:,} 步时，模型把探针图像 {seed} 认作{answer}（正确：{right}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="145"/>
        <source>Atlas</source>
        <translation>图谱</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="188"/>
        <source>Atlas of heads</source>
        <translation>头图谱</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="275"/>
        <source>atp − denoise</source>
        <translation>atp − denoise</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="42"/>
        <source>atp: attribution patching's estimate</source>
        <translation>atp：归因修补的估计</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/docks.py" line="121"/>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="29"/>
        <location filename="../../attnviz/gallery.py" line="511"/>
        <source>attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="137"/>
        <source>attention (raw, the heads' mean), rollout, flow or norm, read after this layer</source>
        <translation>attention（原始注意力，各头均值）、rollout、flow 或 norm，取该层之后的值</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="115"/>
        <source>Attention Cues</source>
        <translation>注意力提示</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="622"/>
        <source>Attention cues: the identity matrix as attention weights</source>
        <translation>注意力提示：以单位矩阵作为注意力权重</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="113"/>
        <source>Attention cues: weights of an identity attention (10 × 10)</source>
        <translation>注意力提示：单位矩阵注意力的权重（10 × 10）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="20"/>
        <source>attention flow</source>
        <translation>注意力流</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="135"/>
        <source>Attention heads per layer (Transformer models); they must divide the width</source>
        <translation>每层的注意力头数（Transformer 模型）；宽度必须能被头数整除</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="132"/>
        <source>Attention in today's models</source>
        <translation>当今模型中的注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="285"/>
        <source>attention layers</source>
        <translation>个注意力层</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="532"/>
        <source>Attention mask (no causal mask: every position reads every other)</source>
        <translation>注意力掩蔽（无因果掩蔽：每个位置都读取所有位置）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="531"/>
        <source>Attention mask at step {step} (no causal mask)</source>
        <translation>第 {step} 步的注意力掩蔽（无因果掩蔽）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/compare.py" line="142"/>
        <source>Attention of two models on the source sentence, and their difference</source>
        <translation>两个模型在源句子上的注意力及其差异</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="163"/>
        <source>Attention of {query} over {image}, every layer and head</source>
        <translation>{query} 在 {image} 上的注意力，所有层和头</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads_images.py" line="60"/>
        <source>attention over {count:,} images</source>
        <translation>{count:,} 张图像上的注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="117"/>
        <source>Attention Pooling by Similarity</source>
        <translation>基于相似度的注意力汇聚</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="116"/>
        <source>Attention Pooling: Nadaraya-Watson Kernel Regression</source>
        <translation>注意力汇聚：Nadaraya-Watson 核回归</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/rollout.py" line="55"/>
        <source>Attention rollout</source>
        <translation>注意力展开</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="20"/>
        <source>attention rollout</source>
        <translation>注意力展开</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/rollout.py" line="16"/>
        <source>Attention rollout (Abnar &amp; Zuidema, 2020) follows attention down through all the encoder's layers to the input tokens. Each layer's heads are averaged, the residual connection is modelled by mixing in the identity (0.5·attention + 0.5·I, rows renormalised), and the layers' matrices are multiplied, first layer first. Source attribution carries the decoder's head-averaged cross-attention through the encoder's rollout, so each output step is traced back to source words rather than encoder states. A decoder-only model has one causal self-attention: its rollout runs over the whole sequence, and each answer position's rollout row is cut to the prompt's columns: the share of it that flows from each prompt token (the rest flows from the answer so far).</source>
        <translation>注意力展开（Abnar &amp; Zuidema, 2020）沿着编码器的所有层把注意力一路追溯到输入词元。每层的各头取平均，残差连接通过混入单位矩阵来建模（0.5·注意力 + 0.5·I，各行重新归一化），然后从第一层开始把各层的矩阵相乘。源归因把解码器各头平均后的编码器－解码器注意力经过编码器的注意力展开传递下去，从而把每个输出步追溯到源语言的词，而不是编码器的状态。仅解码器模型只有一个因果自注意力：它的注意力展开覆盖整个序列，每个回答位置的展开行被截取到提示词的列：即其中从提示词中每个词元流入的份额（其余部分来自目前已生成的回答）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/rollout.py" line="42"/>
        <source>Attention rollout (Abnar &amp; Zuidema, 2020): heads averaged, 0.5·A + 0.5·I for the residual, rows renormalised, layers multiplied. Hover here for more.</source>
        <translation>注意力展开（attention rollout；Abnar &amp; Zuidema, 2020）：各头取平均，以 0.5·A + 0.5·I 表示残差，行重新归一化，各层相乘。悬停在此查看详情。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="170"/>
        <source>Attention rollout, encoder {layers} (heads averaged, + I for the residual)</source>
        <translation>注意力展开，编码器{layers}（各头平均，+ I 表示残差）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="406"/>
        <source>Attention rollout, prompt {layers} (heads averaged, + I for the residual)</source>
        <translation>提示词上的注意力展开，{layers}（各头平均，+ I 表示残差）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="528"/>
        <location filename="../../attnviz/core/layout.py" line="636"/>
        <source>Attention rollout, {layers} (heads averaged, + I for the residual)</source>
        <translation>注意力展开，{layers}（各头平均，+ I 表示残差）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="118"/>
        <location filename="../../attnviz/figures/editions.py" line="119"/>
        <source>Attention Scoring Functions</source>
        <translation>注意力评分函数</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="531"/>
        <source>attention spread evenly ({px:.1f} px)</source>
        <translation>注意力均匀分布（{px:.1f} 像素）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/kernel.py" line="81"/>
        <source>Attention weights of the query over training points</source>
        <translation>查询在训练样本上的注意力权重</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="166"/>
        <source>Attention weights of the query x = {x:.2f} over the training points</source>
        <translation>查询 x = {x:.2f} 在训练样本上的注意力权重</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="128"/>
        <source>Attention weights, {model}</source>
        <translation>注意力权重，{model}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="503"/>
        <source>attention, layer {layer}</source>
        <translation>注意力，第 {layer} 层</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="270"/>
        <source>Attention: one head's (or the heads' mean) weights of the query. Rollout: how much of each patch reaches the query after this layer, the heads averaged (Abnar &amp; Zuidema 2020), with or without 0.5·I for the residual</source>
        <translation>注意力：查询在一个头中（或各头平均）的注意力权重。注意力展开（rollout）：到这一层为止，每个图块有多少流到该查询，各头平均（Abnar &amp; Zuidema 2020），可加或不加代表残差连接的 0.5·I</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="672"/>
        <source>attnviz checkpoint (*.safetensors)</source>
        <translation>attnviz 检查点 (*.safetensors)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/file_opening.py" line="54"/>
        <location filename="../../attnviz/gui/panels/compare.py" line="213"/>
        <source>attnviz checkpoints (*.safetensors);;All files (*)</source>
        <translation>attnviz 检查点 (*.safetensors);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="338"/>
        <source>attnviz explain: {world} processes, {sentences:,} sentences</source>
        <translation>attnviz explain：{world} 个进程，{sentences:,} 个句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="398"/>
        <source>attnviz flip-book: {model} · {sentence}</source>
        <translation>attnviz 翻页动画：{model} · {sentence}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="224"/>
        <location filename="../../attnviz/commands/heads.py" line="328"/>
        <source>attnviz heads: {world} processes, {sentences:,} sentences</source>
        <translation>attnviz heads：{world} 个进程，{sentences:,} 个句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/unopenable.py" line="16"/>
        <source>attnviz opens a checkpoint (.safetensors), a saved session (.json) or a Hugging Face model folder</source>
        <translation>attnviz 可打开检查点（.safetensors）、已保存的会话（.json）或 Hugging Face 模型文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/patch.py" line="129"/>
        <source>attnviz patch: {world} processes, {pairs:,} pairs</source>
        <translation>attnviz patch：{world} 个进程，{pairs:,} 对</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/file_opening.py" line="158"/>
        <source>attnviz sessions (*.attnviz.json *.json)</source>
        <translation>attnviz 会话 (*.attnviz.json *.json)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/file_opening.py" line="165"/>
        <source>attnviz sessions (*.attnviz.json *.json);;All files (*)</source>
        <translation>attnviz 会话 (*.attnviz.json *.json);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../attnviz/i18n.py" line="77"/>
        <source>attnviz speaks {languages}; not {code}</source>
        <translation>attnviz 只支持 {languages}；不支持 {code}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="321"/>
        <source>attnviz train: linear warm-up, cosine decay (same peak)</source>
        <translation>attnviz 训练：线性预热，余弦衰减（峰值相同）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panel_links.py" line="107"/>
        <source>attnviz training: {name}</source>
        <translation>attnviz 训练：{name}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/language.py" line="106"/>
        <source>attnviz will speak {language} when it starts again.</source>
        <translation>attnviz 重新启动后将使用{language}。</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="243"/>
        <source>attnviz {command}: waiting for machine 0 at {address} (at most {seconds:g} s, {env})</source>
        <translation>attnviz {command}：正在等待位于 {address} 的 0 号机器（最多 {seconds:g} 秒，{env}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/encoder_only.py" line="132"/>
        <source>attnviz's BERT adds a learned table, one vector per position, to the token and segment embeddings.</source>
        <translation>attnviz 的 BERT 把一张学习得到的表（每个位置一个向量）加到词元嵌入和片段嵌入上。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/vit.py" line="188"/>
        <source>attnviz's ViT adds a learned vector per position — [CLS], then each patch, row by row — to the patch embeddings (d2l 1.0 §11.8).</source>
        <translation>attnviz 的 ViT 为每个位置（先是 [CLS]，然后逐行是每个图块）学一个向量，加到图块嵌入上（d2l 1.0 §11.8）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="254"/>
        <source>attnviz: error: machine 0 did not come to the rendezvous at {address} in {seconds:g} s ({env}): start the same command there with --node-rank 0; nothing was written</source>
        <translation>attnviz：错误：0 号机器在 {seconds:g} 秒内未到达 {address} 的会合点（{env}）：请在那里以 --node-rank 0 运行同一条命令；未写入任何内容</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="404"/>
        <source>attnviz: error: machine {node} was started with other options than this one ({differences}): every machine runs the same command, only --node-rank differs; the job stopped, nothing was written</source>
        <translation>attnviz：错误：机器 {node} 启动时的选项与本机不同（{differences}）：每台机器运行同一条命令，只有 --node-rank 不同；作业已停止，未写入任何内容</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="450"/>
        <source>attnviz: error: process {rank} of {world} (pid {pid}) was killed by {signal}{oom}: the job stopped; nothing was written</source>
        <translation>attnviz：错误：{world} 个进程中的进程 {rank}（pid {pid}）被 {signal} 终止{oom}：作业已停止；未写入任何文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="461"/>
        <source>attnviz: error: process {rank} of {world} ended with exit code {code}; the job stopped</source>
        <translation>attnviz：错误：{world} 个进程中的进程 {rank} 以退出码 {code} 结束；作业已停止</translation>
    </message>
    <message>
        <location filename="../../attnviz/cli.py" line="96"/>
        <location filename="../../attnviz/cli.py" line="101"/>
        <location filename="../../attnviz/commands/processes.py" line="41"/>
        <source>attnviz: error: {message}</source>
        <translation>attnviz：错误：{message}</translation>
    </message>
    <message>
        <location filename="../../attnviz/app.py" line="132"/>
        <location filename="../../attnviz/app.py" line="204"/>
        <location filename="../../attnviz/app.py" line="214"/>
        <source>attnviz: error: {problem}</source>
        <translation>attnviz：错误：{problem}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/distributed.py" line="363"/>
        <source>attnviz: error: {why}: the job stopped; nothing was written</source>
        <translation>attnviz：错误：{why}：作业已停止；未写入任何文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="532"/>
        <source>attnviz: flip-book of {count:,} snapshots: drawn {percent} %</source>
        <translation>attnviz：{count:,} 个快照的翻页动画：已绘制 {percent}%</translation>
    </message>
    <message>
        <location filename="../../attnviz/cli.py" line="86"/>
        <location filename="../../attnviz/commands/processes.py" line="45"/>
        <source>attnviz: hung up (the terminal closed); no output was left half-written</source>
        <translation>attnviz：已挂断（终端已关闭）；没有留下写了一半的输出</translation>
    </message>
    <message>
        <location filename="../../attnviz/cli.py" line="106"/>
        <location filename="../../attnviz/commands/processes.py" line="42"/>
        <source>attnviz: internal error: {kind}: {error} (set ATTNVIZ_DEBUG=1 to see where)</source>
        <translation>attnviz：内部错误：{kind}：{error}（设置 ATTNVIZ_DEBUG=1 可查看出错位置）</translation>
    </message>
    <message>
        <location filename="../../attnviz/cli.py" line="85"/>
        <location filename="../../attnviz/commands/processes.py" line="43"/>
        <source>attnviz: interrupted; no output was left half-written</source>
        <translation>attnviz：已中断；没有留下写了一半的输出</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="493"/>
        <location filename="../../attnviz/commands/export.py" line="550"/>
        <source>attnviz: note: {notice}</source>
        <translation>attnviz：提示：{notice}</translation>
    </message>
    <message>
        <location filename="../../attnviz/xcb_check.py" line="107"/>
        <source>attnviz: Qt's X11 platform plugin cannot start: missing {libraries}.
Install them with:  sudo apt-get install {packages}
(other distributions: the packages that provide those libraries; or run under Wayland)</source>
        <translation>attnviz：Qt 的 X11 平台插件无法启动：缺少 {libraries}。
用以下命令安装：  sudo apt-get install {packages}
（其他发行版：安装提供这些库的软件包；或在 Wayland 下运行）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="223"/>
        <source>attnviz: stopping after this step and saving what it learned (Ctrl-C again quits without saving)</source>
        <translation>attnviz：将在这一步之后停止并保存已学到的内容（再按 Ctrl-C 则不保存直接退出）</translation>
    </message>
    <message>
        <location filename="../../attnviz/cli.py" line="87"/>
        <location filename="../../attnviz/commands/processes.py" line="44"/>
        <source>attnviz: terminated; no output was left half-written</source>
        <translation>attnviz：已终止；没有留下写了一半的输出</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="761"/>
        <source>attnviz: the book's attention figures</source>
        <translation>attnviz：书中的注意力图表</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="143"/>
        <source>attnviz: the run's state is kept in {state}: the same command with --resume continues it</source>
        <translation>attnviz：本次运行的状态保存在 {state}：加上 --resume 运行同一命令即可继续</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/shared.py" line="51"/>
        <source>attnviz: warning: {message}</source>
        <translation>attnviz：警告：{message}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/errors.py" line="48"/>
        <source>attnviz: {level}: {message}</source>
        <translation>attnviz：{level}：{message}</translation>
    </message>
    <message>
        <location filename="../../attnviz/cli.py" line="81"/>
        <source>attnviz: {signal} came as the output was being moved into place; the move was finished first, so {folder} is complete</source>
        <translation>attnviz：{signal} 到达时输出正在移入位置；移动已先完成，因此 {folder} 是完整的</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/patching.py" line="57"/>
        <source>attribution patching's estimate</source>
        <translation>归因修补的估计</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="55"/>
        <source>attribution patching's estimate of `denoise`: (z_clean − z_corrupt)·∂m/∂z at the corrupt run, over the logit difference</source>
        <translation>归因修补对 `denoise` 的估计：在损坏运行处的 (z_clean − z_corrupt)·∂m/∂z，除以 logit 差</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/patching.py" line="19"/>
        <source>attribution patching's estimate of the share restored</source>
        <translation>归因修补对恢复份额的估计</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="274"/>
        <source>attribution patching's mean estimate of it</source>
        <translation>归因修补对它的平均估计</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="228"/>
        <source>auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <location filename="../../attnviz/app.py" line="45"/>
        <location filename="../../attnviz/commands/classify.py" line="27"/>
        <location filename="../../attnviz/commands/explain.py" line="77"/>
        <source>auto, cpu, cuda, cuda:N or mps</source>
        <translation>auto、cpu、cuda、cuda:N 或 mps</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="43"/>
        <source>auto, cpu, cuda, cuda:N or mps (default auto)</source>
        <translation>auto、cpu、cuda、cuda:N 或 mps（默认 auto）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="76"/>
        <source>auto, cpu, cuda, cuda:N or mps (under torchrun on CUDA: each process its LOCAL_RANK's GPU)</source>
        <translation>auto、cpu、cuda、cuda:N 或 mps（在 CUDA 上用 torchrun 时：每个进程使用其 LOCAL_RANK 对应的 GPU）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="626"/>
        <source>Average pooling</source>
        <translation>平均汇聚</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="136"/>
        <source>average pooling</source>
        <translation>平均汇聚</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="627"/>
        <source>Average pooling is the non-parametric pooling with the constant kernel.</source>
        <translation>平均汇聚就是使用常数核的非参数汇聚。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="135"/>
        <source>Average pooling: every prediction is the mean of the training y</source>
        <translation>平均汇聚：每个预测都是训练样本 y 的均值</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="278"/>
        <location filename="../../attnviz/gui/menus.py" line="78"/>
        <source>Back one step ({keys})</source>
        <translation>后退一步（{keys}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="143"/>
        <source>Back to the window as it was (Esc)</source>
        <translation>回到原来的窗口布局（Esc）</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/images.py" line="28"/>
        <source>Bag</source>
        <translation>包</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="120"/>
        <source>Bahdanau Attention</source>
        <translation>Bahdanau 注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="437"/>
        <source>Bahdanau attention</source>
        <translation>Bahdanau 注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="648"/>
        <source>Bahdanau attention of the trained model</source>
        <translation>训练好的模型的 Bahdanau 注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="441"/>
        <source>Bahdanau model</source>
        <translation>Bahdanau 模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="650"/>
        <source>Bahdanau model: training curve</source>
        <translation>Bahdanau 模型：训练曲线</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/kernel.py" line="55"/>
        <source>Bandwidth h</source>
        <translation>带宽 h</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/kernel.py" line="48"/>
        <source>Bandwidth h of the non-parametric kernel K((x − xᵢ) / h)</source>
        <translation>非参数核 K((x − xᵢ) / h) 的带宽 h</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kernel_regression.py" line="80"/>
        <source>bandwidth must be a positive number, got {bandwidth}</source>
        <translation>带宽必须是正数，实际为 {bandwidth}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/docks.py" line="130"/>
        <source>Batch</source>
        <translation>批量</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="222"/>
        <location filename="../../attnviz/gallery.py" line="233"/>
        <source>batch</source>
        <translation>批量</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="285"/>
        <source>beam </source>
        <translation>束宽 </translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/beams.py" line="116"/>
        <source>Beam search keeps the best hypotheses at every step; faded branches were pruned. Click a node to see its attention. Set the beam size beside Reset.</source>
        <translation>束搜索在每一步保留最好的若干候选序列；淡色的分支已被剪除。点击节点查看其注意力。束宽在“重置”旁边设置。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="314"/>
        <source>Beam search keeps this many hypotheses; the best one is shown above</source>
        <translation>束搜索保留的候选序列个数；最好的一个显示在上方</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/beam_tree.py" line="61"/>
        <source>Beam search tree up to step {step} ({kept} kept; pruned branches faded)</source>
        <translation>截至第 {step} 步的束搜索树（保留 {kept} 个；被剪枝的分支淡化显示）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="69"/>
        <source>beam size (1 = greedy)</source>
        <translation>束宽（1 = 贪心搜索）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="67"/>
        <source>beam size (default 1: greedy)</source>
        <translation>束宽（默认 1：贪心搜索）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/shared.py" line="108"/>
        <source>beam size (default {beam}; 1 = greedy, as the app steps by default)</source>
        <translation>束宽（默认 {beam}；1 = 贪心搜索，即应用默认的单步方式）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/stepping.py" line="79"/>
        <source>beam size must be from 1 to {most}, got {size}</source>
        <translation>束宽必须在 1 到 {most} 之间，实际为 {size}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="167"/>
        <location filename="../../attnviz/gui/docks.py" line="145"/>
        <source>Beams</source>
        <translation>束搜索</translation>
    </message>
    <message>
        <location filename="../../attnviz/xcb_check.py" line="91"/>
        <source>Before the window opens on X11: does Qt's xcb platform plugin find every shared library it needs?</source>
        <translation>在 X11 上打开窗口之前：Qt 的 xcb 平台插件能否找到它需要的每个共享库？</translation>
    </message>
    <message>
        <location filename="../../attnviz/modern_gallery.py" line="95"/>
        <source>bidirectional window ±{half}: keys on both sides</source>
        <translation>双向窗口 ±{half}：两侧的键</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/variants.py" line="74"/>
        <source>bidirectional window ±{window}</source>
        <translation>双向窗口 ±{window}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="362"/>
        <source>billions of operations</source>
        <translation>运算量（十亿次）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="657"/>
        <source>Binary representations of 0…7</source>
        <translation>0…7 的二进制表示</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="300"/>
        <source>bit</source>
        <translation>位</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="299"/>
        <source>bit {n}</source>
        <translation>位 {n}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/live.py" line="159"/>
        <source>BLEU</source>
        <translation>BLEU</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="55"/>
        <source>BLEU with 0, 1, 2, … heads switched off: least important first, and at random (needs a file with references)</source>
        <translation>关闭 0、1、2…… 个头时的 BLEU：先关最不重要的，或随机顺序（需要带参考译文的文件）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="107"/>
        <source>BLEU with a number of heads switched off (ξ_h = 0), in one order</source>
        <translation>按某一顺序关闭若干个头（ξ_h = 0）后的 BLEU</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="125"/>
        <source>BLEU with heads pruned</source>
        <translation>剪掉若干头后的 BLEU</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="482"/>
        <source>BLEU with heads pruned ({count:,} sentences); dotted: the heads off now</source>
        <translation>剪掉若干头后的 BLEU（{count:,} 个句子）；虚线：当前关闭的头数</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/eval.py" line="70"/>
        <source>BLEU {bleu:.2f} on {count} source sentences</source>
        <translation>在 {count} 个源句子上的 BLEU 为 {bleu:.2f}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/masks.py" line="24"/>
        <source>Blue: the query may attend to the key. Grey: masked (weight exactly 0). The Attention panel can overlay the same grey on masked cells.</source>
        <translation>蓝色：查询可以关注该键。灰色：已掩蔽（权重恰为 0）。“注意力”面板可在被掩蔽的单元格上叠加同样的灰色。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/book_dialog.py" line="59"/>
        <source>Book figures — attnviz</source>
        <translation>书中图表 — attnviz</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="133"/>
        <location filename="../../attnviz/gallery.py" line="189"/>
        <source>boxcar</source>
        <translation>矩形</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="73"/>
        <source>Bring back a saved session (Ctrl+Shift+O)</source>
        <translation>恢复已保存的会话（Ctrl+Shift+O）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="63"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="314"/>
        <location filename="../../attnviz/commands/heads.py" line="184"/>
        <source>bytes</source>
        <translation>字节</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="19"/>
        <source>can't open '%(filename)s': %(error)s</source>
        <translation>无法打开“%(filename)s”：%(error)s</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="125"/>
        <location filename="../../attnviz/gui/panels/heads.py" line="110"/>
        <location filename="../../attnviz/gui/panels/patching.py" line="143"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/text.py" line="185"/>
        <source>Cannot force {words}: the model cannot say it (its target vocabulary has {count:,} words). Nothing was forced.</source>
        <translation>无法强制 {words}：模型无法生成它（其目标词表有 {count:,} 个词）。未强制任何词元。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/text.py" line="188"/>
        <source>Cannot force {words}: the model cannot say them (its target vocabulary has {count:,} words). Nothing was forced.</source>
        <translation>无法强制 {words}：模型无法生成它们（其目标词表有 {count:,} 个词）。未强制任何词元。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/hf_dialog.py" line="158"/>
        <source>cannot open: {reason}</source>
        <translation>无法打开：{reason}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/pairs.py" line="68"/>
        <location filename="../../attnviz/training/fashion_mnist.py" line="93"/>
        <source>cannot read {path}: {reason}</source>
        <translation>无法读取 {path}：{reason}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/convert.py" line="158"/>
        <source>cannot write {path}: {error}</source>
        <translation>无法写入 {path}：{error}</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/figure_files.py" line="56"/>
        <source>Cannot write {path}: {reason}</source>
        <translation>无法写入 {path}：{reason}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="176"/>
        <source>Causal mask (decoder self-attention)</source>
        <translation>解码器自注意力的因果掩蔽（自回归）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="175"/>
        <source>Causal mask at step {step}</source>
        <translation>第 {step} 步的因果掩蔽（自回归）</translation>
    </message>
    <message>
        <location filename="../../attnviz/app.py" line="42"/>
        <source>checkpoint to open (default: the shipped Transformer)</source>
        <translation>要打开的检查点（默认：内置的 Transformer）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="36"/>
        <source>checkpoint to write (.safetensors); an existing checkpoint is replaced only with --force, any other file never</source>
        <translation>要写入的检查点（.safetensors）；已有检查点仅在 --force 时被替换，其他文件从不替换</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/hf_dialog.py" line="100"/>
        <source>Choose &amp;folder…</source>
        <translation>选择文件夹(&amp;F)…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/book_dialog.py" line="75"/>
        <source>Choose a figure on the left.</source>
        <translation>请在左侧选择一张图。</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/analysis.py" line="90"/>
        <source>Choose a file of documents, one a line.</source>
        <translation>请选择一个文档文件，每行一篇。</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/patching.py" line="62"/>
        <source>Choose a file of pairs: no generated task applies to this model.</source>
        <translation>请选择一个最小对文件：没有适用于这个模型的生成任务。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="294"/>
        <source>Choose a full folder path to export into (got {folder!r}).</source>
        <translation>请选择要导出到的完整文件夹路径（实际为 {folder!r}）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/hf_dialog.py" line="187"/>
        <source>Choose a Hugging Face model folder</source>
        <translation>选择 Hugging Face 模型文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="174"/>
        <location filename="../../attnviz/gui/panels/train.py" line="527"/>
        <source>Choose a model and a task, then press Train.</source>
        <translation>选择一个模型和一个任务，然后按“训练”。</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/compare.py" line="49"/>
        <source>Choose a model to compare with</source>
        <translation>选择一个用于比较的模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="224"/>
        <location filename="../../attnviz/figures/image.py" line="222"/>
        <source>Choose a second image model</source>
        <translation>选择第二个图像模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="299"/>
        <source>Choose at least one format to export.</source>
        <translation>请至少选择一种导出格式。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="391"/>
        <source>Choose the file of source&lt;TAB&gt;target pairs to train on (Task ▸ your own file).</source>
        <translation>请选择用于训练的 源&lt;TAB&gt;目标 句对文件（任务 ▸ 你自己的文件）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/training.py" line="153"/>
        <source>choose the TSV of source&lt;TAB&gt;target pairs to train on</source>
        <translation>请选择用于训练的 源&lt;TAB&gt;目标 句对 TSV 文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="173"/>
        <source>Click a head</source>
        <translation>单击一个头</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/beams.py" line="170"/>
        <source>Click a hypothesis in the tree</source>
        <translation>点击树中的一个候选序列</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/computation.py" line="47"/>
        <source>Click a row of the Attention heatmap, or pick a query here.</source>
        <translation>点击“注意力”热图中的一行，或在此选择一个查询。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="183"/>
        <location filename="../../attnviz/gui/decoding_area.py" line="302"/>
        <source>Click a token to make the decoder take it at this step instead of its own choice</source>
        <translation>点击一个词元，让解码器在这一步采用它，而不是它自己的选择</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="536"/>
        <source>Click a word to fill the mask with it instead of the model's choice</source>
        <translation>点击一个词，用它而不是模型的选择来填这个掩蔽</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/images.py" line="27"/>
        <source>Coat</source>
        <translation>外套</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="291"/>
        <source>col {d}</source>
        <translation>列 {d}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="138"/>
        <location filename="../../attnviz/gui/panels/patching.py" line="179"/>
        <source>Colour by</source>
        <translation>着色依据</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="36"/>
        <source>colours 0 to 1</source>
        <translation>颜色 0 到 1</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="36"/>
        <source>colours 0 to the largest</source>
        <translation>颜色 0 到最大值</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="17"/>
        <source>column</source>
        <translation>列</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/figures.py" line="27"/>
        <source>comma-separated: png, svg, pdf, csv, npy</source>
        <translation>以逗号分隔：png、svg、pdf、csv、npy</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="63"/>
        <source>comma-separated: png, svg, pdf, csv, npy (default png,csv)</source>
        <translation>以逗号分隔：png、svg、pdf、csv、npy（默认 png,csv）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/shortcuts_dialog.py" line="45"/>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <location filename="../../attnviz/app.py" line="41"/>
        <source>commands (attnviz COMMAND --help): {commands}</source>
        <translation>命令（attnviz COMMAND --help）：{commands}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/docks.py" line="142"/>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/panels.py" line="149"/>
        <source>Compare puts two translation models side by side: the model on show is a {kind} model; open a translation model first</source>
        <translation>“比较”把两个翻译模型并排显示：当前显示的是 {kind} 模型；请先打开一个翻译模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/compare.py" line="63"/>
        <location filename="../../attnviz/gui/panels/compare.py" line="212"/>
        <source>Compare with</source>
        <translation>比较对象</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/images.py" line="281"/>
        <location filename="../../attnviz/session/panels.py" line="206"/>
        <source>Comparing…</source>
        <translation>正在比较…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/docks.py" line="132"/>
        <source>Computation</source>
        <translation>计算过程</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/attention.py" line="35"/>
        <source>Computing all heads…</source>
        <translation>正在计算所有头…</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="659"/>
        <source>Computing layer {layer}, head {head} of {tokens} tokens…</source>
        <translation>正在计算 {tokens} 个词元的第 {layer} 层第 {head} 头…</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/figures.py" line="61"/>
        <source>computing the figures</source>
        <translation>正在计算图</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="288"/>
        <source>computing the map</source>
        <translation>正在计算注意力图</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/decoding.py" line="309"/>
        <source>Computing the map…</source>
        <translation>正在计算注意力图…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/computation.py" line="195"/>
        <location filename="../../attnviz/session/images.py" line="234"/>
        <location filename="../../attnviz/session/panels.py" line="122"/>
        <source>Computing the query…</source>
        <translation>正在计算查询…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/rollout.py" line="23"/>
        <source>Computing the rollout…</source>
        <translation>正在计算注意力展开…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/book_dialog.py" line="193"/>
        <source>Computing…</source>
        <translation>正在计算…</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="18"/>
        <source>confidence without the end of the source (Voita et al.)</source>
        <translation>不含源句末尾的置信度（Voita 等）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="17"/>
        <source>confidence: mean largest weight</source>
        <translation>置信度：平均最大权重</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="134"/>
        <location filename="../../attnviz/gallery.py" line="190"/>
        <source>constant</source>
        <translation>常数</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="52"/>
        <source>continue a stopped run from its state beside --out (OUT.resume, written after each epoch and every 10 minutes); give the same --data, --epochs and settings (default: a new run)</source>
        <translation>从 --out 旁的状态文件（OUT.resume，每个迭代周期结束后及每 10 分钟写入）继续已停止的运行；请给出相同的 --data、--epochs 和设置（默认：新的运行）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="360"/>
        <source>convolutional: k·n·d² (k = 3)</source>
        <translation>卷积神经网络：k·n·d²（k = 3）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="368"/>
        <source>Copied the heatmap to the clipboard</source>
        <translation>已将热图复制到剪贴板</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/book_dialog.py" line="83"/>
        <location filename="../../attnviz/gui/head_grid.py" line="408"/>
        <location filename="../../attnviz/gui/heatmap.py" line="152"/>
        <source>Copy picture</source>
        <translation>复制图片</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/tasks.py" line="163"/>
        <source>copy the digits</source>
        <translation>复制数字</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/tasks.py" line="164"/>
        <source>copy — the diagonal</source>
        <translation>复制 — 对角线</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="136"/>
        <source>Corpus</source>
        <translation>语料</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="112"/>
        <source>corpus BLEU on the reference lines (0–100); heads_pruned 0 is `attnviz eval`'s BLEU</source>
        <translation>在参考译文上的语料级 BLEU（0–100）；heads_pruned 为 0 时即 `attnviz eval` 的 BLEU</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="174"/>
        <source>corpus BLEU, 0–100</source>
        <translation>语料级 BLEU，0–100</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="700"/>
        <source>Cost per layer: self-attention, recurrent, convolutional</source>
        <translation>每层的计算复杂度：自注意力、循环神经网络、卷积神经网络</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/file_opening.py" line="127"/>
        <source>Could not open the session: {error}</source>
        <translation>无法打开会话：{error}</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="184"/>
        <source>could not read the session {name}: {reason}</source>
        <translation>无法读取会话 {name}：{reason}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/file_opening.py" line="99"/>
        <source>Could not save the session</source>
        <translation>无法保存会话</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="157"/>
        <source>could not save the session to {path}: {reason}</source>
        <translation>无法将会话保存到 {path}：{reason}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="259"/>
        <source>Could not write the file: {kind}: {error}</source>
        <translation>无法写入文件：{kind}：{error}</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/beam_tree.py" line="90"/>
        <source>coverage</source>
        <translation>覆盖度</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/beam_tree.py" line="91"/>
        <source>Coverage of {what}: attention each source token received</source>
        <translation>覆盖度（每个源词元获得的注意力）：{what}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/shared.py" line="25"/>
        <source>CPU threads for torch (default 1: steady speed on a busy machine)</source>
        <translation>torch 的 CPU 线程数（默认 1：繁忙机器上速度稳定）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="60"/>
        <source>CPU threads for torch (default: torch's own choice)</source>
        <translation>torch 的 CPU 线程数（默认：由 torch 自行决定）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="85"/>
        <location filename="../../attnviz/commands/patch.py" line="67"/>
        <source>CPU threads for torch per process (default 1)</source>
        <translation>每个进程的 torch CPU 线程数（默认 1）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/errors.py" line="20"/>
        <source>critical</source>
        <translation>严重错误</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/image_tasks.py" line="29"/>
        <source>cross</source>
        <translation>十字</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="149"/>
        <source>cross (cross-attention), dec-self (a decoder's self-attention: a decoder-only model's one) or enc-self (the small BERT's self-attention), as sinks_by_position.csv names them</source>
        <translation>cross（编码器－解码器注意力）、dec-self（解码器自注意力；仅解码器模型唯一的自注意力）或 enc-self（小型 BERT 的自注意力），与 sinks_by_position.csv 的名称一致</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="90"/>
        <source>cross only: mean weight on source position round(i (S − 1) / (T − 1)) of target row i; `n/a` for the other kinds</source>
        <translation>仅 cross：目标行 i 在源位置 round(i (S − 1) / (T − 1)) 上的平均权重；其他种类为 `n/a`</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="92"/>
        <source>cross only: mean weight on the running maximum of the rows' argmax positions (a monotone alignment read off the head); `n/a` for the other kinds</source>
        <translation>仅 cross：各行最大值位置的累计最大值上的平均权重（从该头读出的单调对齐）；其他种类为 `n/a`</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/attention/kind.py" line="15"/>
        <location filename="../../attnviz/core/layout.py" line="368"/>
        <source>cross-attention</source>
        <translation>编码器－解码器注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="27"/>
        <source>cross-attention: share on the diagonal</source>
        <translation>交叉注意力：对角线上的权重占比</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="28"/>
        <source>cross-attention: share on the monotone argmax path</source>
        <translation>交叉注意力：单调 argmax 路径上的权重占比</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="428"/>
        <source>cross-entropy per token</source>
        <translation>每个词元的交叉熵</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/tasks.py" line="170"/>
        <source>crossing: year ← last word, month ← first, day ← second</source>
        <translation>交叉：年 ← 最后一个词，月 ← 第一个，日 ← 第二个</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="40"/>
        <source>CSV numbers (*.csv)</source>
        <translation>CSV 数值 (*.csv)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/positional.py" line="77"/>
        <source>Curves</source>
        <translation>曲线</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="224"/>
        <source>Curves…</source>
        <translation>曲线…</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="16"/>
        <source>d2l 0.17 / the Chinese 2nd edition (chapter 10)</source>
        <translation>《动手学深度学习》第二版 / d2l 0.17（第 10 章）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="17"/>
        <source>d2l 1.0, d2l.ai today (chapter 11)</source>
        <translation>d2l 1.0，即今天的 d2l.ai（第 11 章）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/tasks.py" line="173"/>
        <source>dates — crossing lines</source>
        <translation>日期 — 交叉的线</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="202"/>
        <source>dec-self (a decoder's self-attention: a decoder-only model's one), enc-self (an encoder-only model's, or a translation model's encoder) or cross (a translation model's cross-attention)</source>
        <translation>dec-self（解码器的自注意力：仅解码器模型唯一的那一种）、enc-self（仅编码器模型的，或翻译模型编码器的）或 cross（翻译模型的交叉注意力）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/batch.py" line="76"/>
        <source>Decode a batch to see its attention</source>
        <translation>解码一个批量以查看其注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="310"/>
        <source>Decode again taking the typed target words (teacher forcing)</source>
        <translation>重新解码，采用输入的目标词（强制教学）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/batch.py" line="37"/>
        <source>Decode as one batch</source>
        <translation>作为一个批量解码</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="185"/>
        <location filename="../../attnviz/gui/decoding_area.py" line="279"/>
        <location filename="../../attnviz/gui/menus.py" line="76"/>
        <source>Decode one token ({keys})</source>
        <translation>解码一个词元（{keys}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="162"/>
        <source>Decode the sentence again with every head its own</source>
        <translation>让每个头用自己的输出，重新解码这个句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="280"/>
        <location filename="../../attnviz/gui/menus.py" line="80"/>
        <source>Decode to the end (Ctrl+Return)</source>
        <translation>解码到结束（Ctrl+Return）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/batch.py" line="25"/>
        <source>Decode two or more sentences together to see padding at work.</source>
        <translation>将两个或更多句子一起解码，以查看填充的作用。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="174"/>
        <location filename="../../attnviz/gui/panels/rollout.py" line="37"/>
        <source>decoder layer {n}</source>
        <translation>解码器第 {n} 层</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="392"/>
        <source>decoder queries</source>
        <translation>解码器查询</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/attention/kind.py" line="14"/>
        <source>decoder self-attention</source>
        <translation>解码器自注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="449"/>
        <source>Decoder self-attention (causal)</source>
        <translation>解码器自注意力（因果掩蔽）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="551"/>
        <source>Decoder-only Transformer</source>
        <translation>仅解码器 Transformer</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="265"/>
        <source>Decoder-only Transformer (GPT-style), translating as continuation</source>
        <translation>仅解码器 Transformer（GPT 式），以续写的方式翻译</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/compat.py" line="44"/>
        <source>decoding as generate does</source>
        <translation>按 generate 的规则解码</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/limits.py" line="148"/>
        <source>decoding one sentence would record {gb:.1f} GB of attention maps (layers × heads × lengths too large; attnviz allows {most:.0f} GB)</source>
        <translation>解码一个句子将记录 {gb:.1f} GB 的注意力图（层数 × 头数 × 长度过大；attnviz 最多允许 {most:.0f} GB）</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/panels.py" line="243"/>
        <source>Decoding the batch…</source>
        <translation>正在批量解码…</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/decoding.py" line="191"/>
        <location filename="../../attnviz/session/decoding.py" line="228"/>
        <location filename="../../attnviz/session/decoding.py" line="261"/>
        <source>Decoding…</source>
        <translation>正在解码…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="38"/>
        <source>denoise: share restored, head from the clean run</source>
        <translation>denoise：恢复的份额，头来自干净运行</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="108"/>
        <source>Devi&amp;ce</source>
        <translation>设备(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/device.py" line="83"/>
        <source>device {device!r} is not available here; available: {available}</source>
        <translation>设备 {device!r} 在本机不可用；可用的设备：{available}</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/compare.py" line="77"/>
        <source>difference</source>
        <translation>差异</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/compare.py" line="68"/>
        <source>Difference: {first} − {second} (red: {first} attends more)</source>
        <translation>差异：{first} − {second}（红色：{first} 关注更多）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/positional.py" line="193"/>
        <source>dim {number}</source>
        <translation>维 {number}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/results.py" line="115"/>
        <location filename="../../attnviz/figures/computation.py" line="54"/>
        <location filename="../../attnviz/figures/computation.py" line="47"/>
        <source>dimension</source>
        <translation>维度</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/positional.py" line="182"/>
        <source>dimensions after the first {count} (of {total})</source>
        <translation>前 {count} 个之后的维度（共 {total} 个）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/positional.py" line="57"/>
        <source>Dimensions to plot over positions, e.g. 6, 7, 8-9</source>
        <translation>要随位置绘制的维度，例如 6, 7, 8-9</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/positional.py" line="68"/>
        <source>Dimensions:</source>
        <translation>维度：</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="534"/>
        <location filename="../../attnviz/gui/panels/heads.py" line="150"/>
        <source>distance (pixels)</source>
        <translation>距离（像素）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="157"/>
        <source>Distance by layer</source>
        <translation>逐层距离</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/positional.py" line="148"/>
        <source>distance key − query</source>
        <translation>距离（键 − 查询）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/positional.py" line="88"/>
        <source>distance m (positions)</source>
        <translation>距离 m（位置数）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="512"/>
        <location filename="../../attnviz/session/analysis.py" line="111"/>
        <source>Documents are read, not translated: their heads have no importance to prune by. Map the heads over a file of source&lt;TAB&gt;reference lines for a pruning curve.</source>
        <translation>文档只被读取、不被翻译：其注意力头没有可用于剪枝的重要性。要得到剪枝曲线，请在每行为“源句子&lt;TAB&gt;参考译文”的文件上映射注意力头。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="437"/>
        <source>Done — {why}. {summary}. The model is open in the window (Save model… keeps it).</source>
        <translation>完成——{why}。{summary}。模型已在窗口中打开（“保存模型…”可将其保留）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="439"/>
        <source>Done: {summary}. The model is open in the window (Save model… keeps it).</source>
        <translation>完成：{summary}。模型已在窗口中打开（“保存模型…”可将其保留）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="179"/>
        <location filename="../../attnviz/gui/export_actions.py" line="343"/>
        <source>Drawing attention maps…</source>
        <translation>正在绘制注意力图…</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/panels.py" line="268"/>
        <source>Drawing the book figure…</source>
        <translation>正在绘制书中图表…</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="375"/>
        <location filename="../../attnviz/commands/explain_images.py" line="110"/>
        <location filename="../../attnviz/commands/heads.py" line="260"/>
        <source>drawing the figures</source>
        <translation>正在绘制图</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/figures.py" line="71"/>
        <source>drawing the files</source>
        <translation>正在绘制文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="158"/>
        <source>Drawing the flip-book ({frames})…</source>
        <translation>正在绘制翻页动画（{frames}）…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="449"/>
        <source>Drawing {name}…</source>
        <translation>正在绘制 {name}…</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/images.py" line="27"/>
        <source>Dress</source>
        <translation>连衣裙</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="105"/>
        <source>E&amp;xample sentences</source>
        <translation>示例句子(&amp;X)</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="271"/>
        <location filename="../../attnviz/gui/panels/heads.py" line="152"/>
        <source>each head</source>
        <translation>每个头</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="234"/>
        <source>each head's share on the first position (sinks_by_position.csv's `first` rows of the kind)</source>
        <translation>每个头在第一个位置上的份额（sinks_by_position.csv 中该种注意力 `first` 的行）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="227"/>
        <source>each head's share on the first position (sinks_by_position.csv's `first` rows)</source>
        <translation>每个头在第一个位置上的份额（sinks_by_position.csv 中 `first` 的行）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="163"/>
        <source>each head's value of the statistic</source>
        <translation>每个头的该统计量的值</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="167"/>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="327"/>
        <source>each layer of this {kind}</source>
        <translation>此 {kind} 的每一层</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/tasks.py" line="167"/>
        <source>each output digit on where it came from</source>
        <translation>每个输出数字的来源位置</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="62"/>
        <location filename="../../attnviz/core/columns.py" line="239"/>
        <source>enc-self (encoder self-attention), dec-self (decoder self-attention; a decoder-only model's one self-attention) or cross (cross-attention)</source>
        <translation>enc-self（编码器自注意力）、dec-self（解码器自注意力；仅解码器模型唯一的自注意力）或 cross（编码器－解码器注意力）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="161"/>
        <source>enc-self, dec-self or cross</source>
        <translation>enc-self、dec-self 或 cross</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="173"/>
        <location filename="../../attnviz/gui/panels/rollout.py" line="35"/>
        <source>encoder layers 1–{n}</source>
        <translation>编码器第 1–{n} 层</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/attention/kind.py" line="13"/>
        <source>encoder self-attention</source>
        <translation>编码器自注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="295"/>
        <source>Encoder-only Transformer (a small BERT), filling masked words</source>
        <translation>仅编码器 Transformer（小型 BERT），填补掩蔽词</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="453"/>
        <source>Encoder–decoder attention</source>
        <translation>编码器－解码器注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="469"/>
        <source>Encoder–decoder vs decoder-only on the same sentence</source>
        <translation>同一句子上的编码器－解码器与仅解码器对比</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="670"/>
        <source>Encoder–decoder vs decoder-only on the same sentence: cross-attention beside the decoder-only model's source view</source>
        <translation>同一句子上的编码器－解码器与仅解码器对比：编码器－解码器注意力与仅解码器模型的源视图并列</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="284"/>
        <source>encoding dimension</source>
        <translation>编码维度</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/attention.py" line="274"/>
        <location filename="../../attnviz/session/decoding.py" line="103"/>
        <source>Encoding…</source>
        <translation>正在编码…</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="56"/>
        <source>English sentences, one a line, or a TSV of english&lt;TAB&gt;french pairs; for an image model, a folder of images</source>
        <translation>英语句子（每行一句），或英语&lt;TAB&gt;法语 句对的 TSV 文件；对图像模型则为一个图像文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="352"/>
        <source>entropy of the weights (nats)</source>
        <translation>权重的熵（奈特）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="538"/>
        <source>entropy {value:.3g}</source>
        <translation>熵 {value:.3g}</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="133"/>
        <source>epanechnikov</source>
        <translation>Epanechnikov</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="165"/>
        <location filename="../../attnviz/gallery.py" line="432"/>
        <location filename="../../attnviz/gallery.py" line="427"/>
        <source>epoch</source>
        <translation>迭代周期</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="108"/>
        <source>epoch limit (1 epoch) reached</source>
        <translation>已到迭代周期上限（1 个迭代周期）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="110"/>
        <source>epoch limit (all {epochs:,} epochs) reached</source>
        <translation>已到迭代周期上限（全部 {epochs:,} 个迭代周期）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="111"/>
        <source>epoch limit reached</source>
        <translation>已到迭代周期上限</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/epochs.py" line="78"/>
        <source>epoch {epoch} could not be saved: {error}; {kept}</source>
        <translation>无法保存第 {epoch} 个迭代周期：{error}；{kept}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/train.py" line="179"/>
        <source>epoch {epoch}/{epochs}</source>
        <translation>迭代周期 {epoch}/{epochs}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/vision.py" line="121"/>
        <source>epoch {epoch}/{epochs}: batch {done:,}/{total:,}, loss {loss:.3f}, {rate:,.0f} images/s, {eta:.1f} min left in the epoch</source>
        <translation>第 {epoch}/{epochs} 轮：批次 {done:,}/{total:,}，损失 {loss:.3f}，每秒 {rate:,.0f} 张图像，本轮还剩 {eta:.1f} 分钟</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/train.py" line="221"/>
        <source>epoch {epoch}: training BLEU {bleu:.2f} after {minutes:.1f} min; {said}</source>
        <translation>第 {epoch} 个迭代周期：训练集 BLEU {bleu:.2f}，用时 {minutes:.1f} 分钟；{said}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/vision.py" line="235"/>
        <source>epoch {epoch}: validation accuracy {accuracy:.2f} % after {minutes:.1f} min</source>
        <translation>第 {epoch} 轮：验证准确率 {accuracy:.2f} %，用时 {minutes:.1f} 分钟</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/train.py" line="220"/>
        <source>epoch {epoch}: validation BLEU {bleu:.2f} after {minutes:.1f} min; {said}</source>
        <translation>第 {epoch} 个迭代周期：验证集 BLEU {bleu:.2f}，用时 {minutes:.1f} 分钟；{said}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="159"/>
        <source>Epochs</source>
        <translation>迭代周期数</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/errors.py" line="20"/>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="133"/>
        <source>every </source>
        <translation>每 </translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="122"/>
        <source>Every attention figure of d2l.ai's attention chapters and of the Transformer paper, live and exportable (F1)</source>
        <translation>d2l.ai 注意力章节和 Transformer 论文中的每一张注意力图，可实时显示，可导出（F1）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/scoring.py" line="148"/>
        <source>Every key is masked: the row is all zeros (attnviz never divides by zero).</source>
        <translation>所有键都被掩蔽：该行全为 0（attnviz 从不除以零）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="287"/>
        <source>Every layer × head as a small overlay; click one to show it</source>
        <translation>所有层 × 头，各画成一张小叠加图；点击其中一张即可显示它</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="73"/>
        <source>Every recorded step (not only the one on show)</source>
        <translation>每个已记录的步骤（不只是当前显示的一步）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/stepping.py" line="244"/>
        <source>every sentence of a batch needs at least one word</source>
        <translation>批量中的每个句子至少需要一个词</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="185"/>
        <source>Every text of the window at {scale:.0%}, readable on a projector (exported figures keep their size)</source>
        <translation>窗口中的所有文字放大到 {scale:.0%}，投影时也能看清（导出的图保持原尺寸）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="189"/>
        <source>Every text of the window larger (Ctrl+=)</source>
        <translation>放大窗口中的所有文字（Ctrl+=）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="191"/>
        <source>Every text of the window smaller (Ctrl+-)</source>
        <translation>缩小窗口中的所有文字（Ctrl+-）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/tasks.py" line="114"/>
        <location filename="../../attnviz/gui/panels/train.py" line="51"/>
        <location filename="../../attnviz/training/live.py" line="130"/>
        <source>exact match</source>
        <translation>完全匹配率</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/distributed.py" line="251"/>
        <source>exchanging with the other processes failed ({error})</source>
        <translation>与其他进程交换数据失败（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="20"/>
        <source>expected %s argument</source>
        <translation>需要 %s 个参数值</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="20"/>
        <source>expected %s arguments</source>
        <translation>需要 %s 个参数值</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="16"/>
        <source>expected at least one argument</source>
        <translation>至少需要一个参数值</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="16"/>
        <source>expected at most one argument</source>
        <translation>最多需要一个参数值</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="15"/>
        <source>expected one argument</source>
        <translation>需要一个参数值</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/docks.py" line="139"/>
        <source>Explain</source>
        <translation>解释</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="48"/>
        <source>explain every greedily decoded token of a corpus by attention, rollout, flow, norms, gradients and occlusion, and measure their agreement</source>
        <translation>用注意力、注意力展开、注意力流、范数、梯度和遮挡解释语料中贪心解码出的每个词元，并度量它们的一致程度</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="59"/>
        <source>explain the first N sentences (or images, by name) only (default all)</source>
        <translation>只解释前 N 个句子（或按文件名排序的前 N 张图像）（默认全部）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain_images.py" line="112"/>
        <source>explained the predicted class of {count} images; wrote {files} files to {out}</source>
        <translation>已解释 {count} 张图像的预测类别；已向 {out} 写入 {files} 个文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="377"/>
        <source>explained {tokens} tokens of {count} sentences; wrote {files} files to {out}</source>
        <translation>已解释 {count} 个句子中的 {tokens} 个词元；已向 {out} 写入 {files} 个文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="349"/>
        <location filename="../../attnviz/commands/explain_images.py" line="93"/>
        <source>explaining</source>
        <translation>正在解释</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain_images.py" line="49"/>
        <source>explaining a folder of images runs in one process: run attnviz explain without --processes or torchrun</source>
        <translation>解释一个图像文件夹只在一个进程中运行：请不带 --processes、也不经 torchrun 运行 attnviz explain</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="113"/>
        <location filename="../../attnviz/session/images.py" line="206"/>
        <source>Explaining the image's class…</source>
        <translation>正在解释图像的类别…</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/analysis.py" line="271"/>
        <source>Explaining the step…</source>
        <translation>正在解释这一步…</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/explain/causal.py" line="63"/>
        <source>explaining {tokens:,} tokens of this model would hold {gb:.1f} GB of maps and transformed values (attnviz allows {most:.0f} GB): give shorter sentences</source>
        <translation>解释此模型的 {tokens:,} 个词元需要保存 {gb:.1f} GB 的注意力图和变换后的值（attnviz 最多允许 {most:.0f} GB）：请给出更短的句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="203"/>
        <source>Export &amp;all maps…</source>
        <translation>导出全部注意力图(&amp;A)…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="205"/>
        <source>Export &amp;flip-book…</source>
        <translation>导出翻页动画(&amp;F)…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="179"/>
        <source>Export all</source>
        <translation>全部导出</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="61"/>
        <source>Export all attention maps</source>
        <translation>导出全部注意力图</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/head_grid.py" line="407"/>
        <source>Export all heads as one picture or table…</source>
        <translation>将所有头导出为一张图片或表格…</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/figure_files.py" line="338"/>
        <location filename="../../attnviz/render/figure_files.py" line="302"/>
        <source>Export cancelled: nothing was written.</source>
        <translation>导出已取消：没有写入任何文件。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="159"/>
        <location filename="../../attnviz/gui/export_actions.py" line="457"/>
        <source>Export flip-book</source>
        <translation>导出翻页动画</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="377"/>
        <source>Export heatmap</source>
        <translation>导出热图</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="96"/>
        <source>Export into folder</source>
        <translation>导出到文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/heatmap.py" line="151"/>
        <location filename="../../attnviz/gui/panels/heads.py" line="86"/>
        <location filename="../../attnviz/gui/panels/patching.py" line="107"/>
        <source>Export picture or numbers…</source>
        <translation>导出图片或数值…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="225"/>
        <source>Export the loss, score and agreement curves (PNG, SVG, PDF or CSV)</source>
        <translation>导出损失、得分和对齐一致率曲线（PNG、SVG、PDF 或 CSV）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/compare.py" line="57"/>
        <source>Export the three maps as one figure</source>
        <translation>将三幅热图导出为一张图</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="222"/>
        <source>Export the training as a flip-book: a PDF page and a GIF frame per snapshot, the loss so far under each map</source>
        <translation>将训练导出为翻页动画：每个快照一页 PDF 和一帧 GIF，每张注意力图下方是截至当时的损失</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panel_links.py" line="103"/>
        <source>Export the training's flip-book</source>
        <translation>导出训练的翻页动画</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/beams.py" line="65"/>
        <source>Export tree…</source>
        <translation>导出树…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="421"/>
        <source>Exported the flip-book ({frames}): {files}</source>
        <translation>已导出翻页动画（{frames}）：{files}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="420"/>
        <source>Exported the flip-book ({frames}): {files}. {notice}</source>
        <translation>已导出翻页动画（{frames}）：{files}。{notice}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="328"/>
        <source>Exported {count} files and {name} into {folder}</source>
        <translation>已将 {count} 个文件和 {name} 导出到 {folder}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="276"/>
        <source>Exported {path}</source>
        <translation>已导出 {path}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/book_dialog.py" line="82"/>
        <location filename="../../attnviz/gui/panels/compare.py" line="56"/>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="23"/>
        <source>F10 or Alt+→; → outside the text field</source>
        <translation>F10 或 Alt+→；在文本框外按 →</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="258"/>
        <source>Fashion-MNIST test images shipped with attnviz (the ViT never trained on them)</source>
        <translation>attnviz 自带的 Fashion-MNIST 测试图像（ViT 从未用它们训练）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="74"/>
        <source>figure formats, comma-separated: png, svg, pdf, csv (default png,svg,pdf)</source>
        <translation>图的格式，以逗号分隔：png、svg、pdf、csv（默认 png,svg,pdf）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="73"/>
        <location filename="../../attnviz/commands/patch.py" line="60"/>
        <source>figure formats, comma-separated: png, svg, pdf, csv (default {formats})</source>
        <translation>图的格式，逗号分隔：png、svg、pdf、csv（默认 {formats}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/figures.py" line="28"/>
        <source>figures whose key or section (in either edition) starts with these, e.g. 10.6,paper or 11.6</source>
        <translation>标识或章节号（任一版本）以这些开头的图，例如 10.6,paper 或 11.6</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="332"/>
        <location filename="../../attnviz/gui/panels/train.py" line="348"/>
        <source>file: {name}</source>
        <translation>文件：{name}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="538"/>
        <source>Fill the next mask ({keys})</source>
        <translation>填下一个掩蔽（{keys}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/panels.py" line="64"/>
        <source>Fitting…</source>
        <translation>正在拟合…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="221"/>
        <source>Flip-book…</source>
        <translation>翻页动画…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="34"/>
        <source>flow</source>
        <translation>注意力流</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="82"/>
        <location filename="../../attnviz/gui/file_dialogs.py" line="32"/>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="58"/>
        <location filename="../../attnviz/commands/export.py" line="62"/>
        <location filename="../../attnviz/commands/figures.py" line="26"/>
        <source>folder to write into (created if missing)</source>
        <translation>写入的文件夹（不存在时创建）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/computation.py" line="44"/>
        <source>Follow</source>
        <translation>跟随</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/language.py" line="85"/>
        <source>Follow the system ({language})</source>
        <translation>跟随系统（{language}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="309"/>
        <source>Force</source>
        <translation>强制</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="184"/>
        <location filename="../../attnviz/gui/decoding_area.py" line="305"/>
        <source>Force target words (a reference translation or its start)…</source>
        <translation>强制目标词（参考译文或其开头）…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="427"/>
        <source>forced</source>
        <translation>已强制</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="83"/>
        <source>Formats</source>
        <translation>格式</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="688"/>
        <source>Full, sliding-window and bidirectional-window masks (Gemma 3's global and local layers, ModernBERT's local one): a window bounds what a layer reads, and its cost</source>
        <translation>完整掩码、滑动窗口掩码和双向窗口掩码（Gemma 3 的全局层与局部层、ModernBERT 的局部层）：窗口限定一层能读到的键，也限定其计算量</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="189"/>
        <source>Gaussian</source>
        <translation>高斯</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="133"/>
        <source>gaussian</source>
        <translation>高斯</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="45"/>
        <source>gender (he/she → il/elle)</source>
        <translation>性别（he/she → il/elle）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="135"/>
        <source>Generated minimal pairs for the model on show, or a file of pairs: clean&lt;TAB&gt;corrupt&lt;TAB&gt;answer&lt;TAB&gt;alternative a line</source>
        <translation>为当前模型生成的最小对，或一个最小对文件：每行 干净&lt;TAB&gt;损坏&lt;TAB&gt;答案&lt;TAB&gt;备选</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/session.py" line="119"/>
        <source>Getting ready to open Hugging Face models…</source>
        <translation>正在准备打开 Hugging Face 模型…</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/patch.py" line="99"/>
        <source>give the pairs with --pairs FILE or a generated task with --task NAME (one of them)</source>
        <translation>用 --pairs FILE 给出最小对，或用 --task NAME 给出生成的任务（二者选一）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="103"/>
        <source>give the sentences with --data FILE or a generated task with --task NAME (one of them)</source>
        <translation>用 --data FILE 给出句子，或用 --task NAME 给出生成任务（二者选一）</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/panels.py" line="230"/>
        <source>Give two or more sentences (one per line) to decode them as one batch.</source>
        <translation>请输入两个或更多句子（每行一个），以作为一个批量解码。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/loaded.py" line="55"/>
        <source>global</source>
        <translation>全局</translation>
    </message>
    <message>
        <location filename="../../attnviz/modern_gallery.py" line="91"/>
        <source>global layer: every earlier key</source>
        <translation>全局层：之前的所有键</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="35"/>
        <source>grad × input</source>
        <translation>梯度×输入</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="21"/>
        <source>gradient × input</source>
        <translation>梯度 × 输入</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="22"/>
        <source>gradient × input, attention detached</source>
        <translation>梯度 × 输入（注意力权重不回传梯度）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="286"/>
        <source>greedy</source>
        <translation>贪心</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="690"/>
        <source>Grouped-query attention (Qwen3, Llama 3): query heads share key/value heads, so the cache of keys is smaller</source>
        <translation>分组查询注意力（Qwen3、Llama 3）：多个查询头共享键/值头，键的缓存因此更小</translation>
    </message>
    <message>
        <location filename="../../attnviz/modern_gallery.py" line="109"/>
        <source>Grouped-query attention: 4 query heads share 2 key/value heads (heads 1–2 read the same keys, 3–4 the other ones)</source>
        <translation>分组查询注意力：4 个查询头共享 2 个键/值头（第 1–2 个头读同一组键，第 3–4 个读另一组）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="272"/>
        <source>GRU encoder–decoder, additive (Bahdanau) attention</source>
        <translation>GRU 编码器－解码器，加性（Bahdanau）注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="277"/>
        <source>GRU encoder–decoder, scaled dot-product attention</source>
        <translation>GRU 编码器－解码器，缩放点积注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="175"/>
        <location filename="../../attnviz/gui/panels/image.py" line="294"/>
        <source>Head</source>
        <translation>头</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="167"/>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="327"/>
        <location filename="../../attnviz/core/hf/positional.py" line="149"/>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="83"/>
        <source>head (layer.head; colour: the kind of attention)</source>
        <translation>头（层.头；颜色：注意力的种类）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/docks.py" line="134"/>
        <location filename="../../attnviz/gui/panels/heads.py" line="377"/>
        <location filename="../../attnviz/gui/panels/heads.py" line="399"/>
        <source>Head atlas</source>
        <translation>头图谱</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/attention.py" line="246"/>
        <location filename="../../attnviz/figures/image.py" line="124"/>
        <location filename="../../attnviz/gui/panels/image.py" line="378"/>
        <source>head {head}</source>
        <translation>第 {head} 个头</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/positional.py" line="192"/>
        <source>head {number}</source>
        <translation>第 {number} 个头</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/attention.py" line="73"/>
        <location filename="../../attnviz/gui/panels/computation.py" line="40"/>
        <location filename="../../attnviz/gui/panels/explain.py" line="166"/>
        <source>head {n}</source>
        <translation>第 {n} 个头</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="158"/>
        <source>Heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/patching.py" line="52"/>
        <source>heads</source>
        <translation>头</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/patching.py" line="166"/>
        <source>Heads are patched into a decoding: load a model that decodes a sentence.</source>
        <translation>头是修补进解码中的：请加载一个解码句子的模型。</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="123"/>
        <source>heads averaged</source>
        <translation>各头平均</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/chains.py" line="103"/>
        <source>heads of this model cannot be switched off (its attention modules have no gates)</source>
        <translation>此模型的头无法关闭（它的注意力模块没有门控）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="517"/>
        <source>Heads off: {heads} — the sentence and every map are decoded without them</source>
        <translation>已关闭的头：{heads}——句子和每张图都在没有它们的情况下重新解码</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="127"/>
        <source>heads pruned</source>
        <translation>剪去的头数</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="57"/>
        <source>heads switched off (of {count}; least important first: by the normalised importance)</source>
        <translation>关闭的头数（共 {count} 个；按归一化重要性，从最不重要的开始）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="164"/>
        <source>heads' mean</source>
        <translation>各头平均</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/kernel.py" line="56"/>
        <source>Heatmap</source>
        <translation>热图</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="181"/>
        <location filename="../../attnviz/gui/panels/train.py" line="543"/>
        <source>Held-out exact match and alignment agreement (%), by step</source>
        <translation>留出集完全匹配率与对齐一致率（%，按步数）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="90"/>
        <source>Held-out score and alignment agreement</source>
        <translation>留出集得分与对齐一致率</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="544"/>
        <source>Held-out {score} and attention agreement (%), by step</source>
        <translation>留出集{score}与注意力一致率（%，按步数）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="545"/>
        <source>Held-out {score}, by step</source>
        <translation>{score}（留出集，按步数）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="229"/>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="37"/>
        <source>HOST:PORT of machine 0, where the processes of every machine meet (with --nodes; default 127.0.0.1 and a free port)</source>
        <translation>0 号机器的 HOST:PORT，各机器的进程在此会合（配合 --nodes；默认 127.0.0.1 和一个空闲端口）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="110"/>
        <location filename="../../attnviz/core/columns.py" line="173"/>
        <source>how many heads are off</source>
        <translation>关闭的头数</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="141"/>
        <source>How many of the generated pairs to patch (in their seeded order)</source>
        <translation>修补多少个生成的最小对（按其固定种子的顺序）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/figures.py" line="31"/>
        <source>how sections are numbered: {editions} (default {default}); the other edition's number stands beside each</source>
        <translation>章节编号方式：{editions}（默认 {default}）；另一版本的编号列在旁边</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="279"/>
        <source>How strongly the attention covers the image</source>
        <translation>注意力覆盖图像的浓淡</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="289"/>
        <source>Hugging Face decoder-only model (GPT-2, Llama, Qwen, Gemma, Mistral …)</source>
        <translation>Hugging Face 仅解码器模型（GPT-2、Llama、Qwen、Gemma、Mistral 等）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="302"/>
        <source>Hugging Face encoder-only model (BERT, DistilBERT, RoBERTa)</source>
        <translation>Hugging Face 仅编码器模型（BERT、DistilBERT、RoBERTa）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="282"/>
        <source>Hugging Face encoder–decoder (Marian, BART, mBART, T5)</source>
        <translation>Hugging Face 编码器－解码器（Marian、BART、mBART、T5）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="320"/>
        <source>Hugging Face vision transformer (ViT, DeiT, DINOv2), reading images by their patches</source>
        <translation>Hugging Face 视觉 Transformer（ViT、DeiT、DINOv2），按图块读取图像</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="35"/>
        <source>IG</source>
        <translation>积分梯度</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="19"/>
        <source>ignored explicit argument %r</source>
        <translation>忽略了显式参数 %r</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/docks.py" line="119"/>
        <source>Image</source>
        <translation>图像</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain_images.py" line="92"/>
        <source>images</source>
        <translation>张图像</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/file_opening.py" line="77"/>
        <source>Images (*.png *.jpg *.jpeg *.webp *.bmp *.gif);;All files (*)</source>
        <translation>图像 (*.png *.jpg *.jpeg *.webp *.bmp *.gif);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="108"/>
        <source>importance (least important first, by `importance_normalised`) or random (the mean of `--seeds` seeded random orders)</source>
        <translation>importance（按 `importance_normalised` 从最不重要的开始）或 random（`--seeds` 个带种子的随机顺序的均值）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="25"/>
        <location filename="../../attnviz/figures/heads.py" line="84"/>
        <source>importance E|∂L/∂ξ|</source>
        <translation>重要性 E|∂L/∂ξ|</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="115"/>
        <source>importance rows: that head's `importance_normalised`; `none` and `mean of the random orders` as in `head`</source>
        <translation>importance 行：该头的 `importance_normalised`；`none` 和 `mean of the random orders` 同 `head` 列</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="113"/>
        <source>importance rows: the head switched off last (kind:layer.head); `none` where no head is off; random rows: `mean of the random orders` (each order switches other heads off)</source>
        <translation>importance 行：最后关闭的头（种类:层.头）；没有头关闭时为 `none`；random 行：`mean of the random orders`（每个顺序关闭的头不同）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="552"/>
        <source>importance {value:.3g}</source>
        <translation>重要性 {value:.3g}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/hf_dialog.py" line="105"/>
        <source>In the cache:</source>
        <translation>缓存中：</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="607"/>
        <source>In the Head atlas, Map heads maps the shipped samples; its Distance by layer tab is this figure.</source>
        <translation>在头图谱中，“绘制头图谱”会映射自带的示例图像；其中的“逐层距离”标签页就是这张图。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="48"/>
        <source>indirect object (Mary/John)</source>
        <translation>间接宾语（Mary/John）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="50"/>
        <source>input tokens</source>
        <translation>输入词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_controls.py" line="135"/>
        <source>Input truncated from {before} to {after} tokens (the model's limit).</source>
        <translation>输入已从 {before} 个词元截断为 {after} 个（模型的上限）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/xcb_check.py" line="93"/>
        <source>install what is missing (root with apt-get)</source>
        <translation>安装缺少的库（需 root 权限和 apt-get）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="61"/>
        <source>instead of --data: a generated task's held-out inputs and right outputs (copy, reverse, sort, dates; --limit of them, default {count}), and each cross-attention head's agreement with the task's true alignment (heads.csv's alignment column) — for a model trained with attnviz train KIND --task NAME</source>
        <translation>代替 --data：生成任务的留出输入及其正确输出（copy、reverse、sort、dates；取 --limit 个，默认 {count} 个），并给出每个编码器－解码器注意力头与任务真实对齐的一致率（heads.csv 的 alignment 列）——适用于用 attnviz train KIND --task NAME 训练的模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/patch.py" line="55"/>
        <source>instead of --pairs: generated pairs (gender, agreement, number for an English–French model; ioi for an English decoder-only folder)</source>
        <translation>代替 --pairs：生成的最小对（英法模型用 gender、agreement、number；英语仅解码器文件夹用 ioi）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="23"/>
        <source>integrated gradients</source>
        <translation>积分梯度</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="62"/>
        <source>integrated gradients' steps, 1 to {most} (default {steps})</source>
        <translation>积分梯度的步数，1 到 {most}（默认 {steps}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="228"/>
        <source>Integrated gradients: the attributions sum to {total:.3f}, f(x) − f(baseline) = {difference:.3f} ({ratio:.1%}).</source>
        <translation>积分梯度：归因之和为 {total:.3f}，f(x) − f(基线) = {difference:.3f}（{ratio:.1%}）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="60"/>
        <source>Integrated gradients: the steps of the path from the &lt;pad&gt; baseline to the sentence (more: closer to complete, slower)</source>
        <translation>积分梯度：从 &lt;pad&gt; 基线到句子的路径步数（越多越接近完备，但越慢）</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="17"/>
        <source>invalid %(type)s value: %(value)r</source>
        <translation>无效的 %(type)s 值：%(value)r</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="18"/>
        <source>invalid choice: %(value)r (choose from %(choices)s)</source>
        <translation>无效的选择：%(value)r（可选：%(choices)s）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/safe_output.py" line="87"/>
        <source>it is {kind}, not a regular file; attnviz writes only regular files</source>
        <translation>它是{kind}，不是普通文件；attnviz 只写入普通文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="222"/>
        <source>it must be a JSON list of strings</source>
        <translation>它必须是由字符串组成的 JSON 列表</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/resume.py" line="67"/>
        <location filename="../../attnviz/training/resume.py" line="64"/>
        <source>it ran with {option} {other}, this run has {this}</source>
        <translation>它使用的是 {option} {other}，本次运行为 {this}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/resume.py" line="59"/>
        <source>it trained on a different --data file (its contents differ)</source>
        <translation>它使用了不同的 --data 文件训练（文件内容不同）</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/resume.py" line="57"/>
        <source>it trained {other}, not {this}</source>
        <translation>它训练的是 {other}，而不是 {this}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/distributed.py" line="268"/>
        <source>its launcher (process {pid}) is gone</source>
        <translation>它的启动进程（进程 {pid}）已不在</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/resume.py" line="70"/>
        <source>its vocabularies differ from this data's</source>
        <translation>它的词表与这份数据的词表不同</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/vision.py" line="142"/>
        <source>its {width:,} × {height:,} pixels would be resized by the model folder's image processor to {resized_width:,} × {resized_height:,}, more than the {most:,} pixels attnviz lets it make of one image (an image far longer than it is wide?)</source>
        <translation>它的 {width:,} × {height:,} 像素会被模型文件夹的图像处理器缩放成 {resized_width:,} × {resized_height:,}，超过 attnviz 允许它为一张图像生成的 {most:,} 像素（图像的长宽比过于悬殊？）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="288"/>
        <source>j &gt; {row} − {window}</source>
        <translation>j &gt; {row} − {window}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="63"/>
        <source>JSON of model settings, e.g. '{"num_decoder_layers": 3}' (default: the kind's standard model, models/MODELS.md)</source>
        <translation>模型设置的 JSON，例如 '{"num_decoder_layers": 3}'（默认：该类型的标准模型，见 models/MODELS.md）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/attention/layers.py" line="148"/>
        <source>k_j = h_j, the encoder's output at source word j</source>
        <translation>k_j = h_j，即编码器在源词 j 处的输出</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="87"/>
        <location filename="../../attnviz/gui/panels/explain.py" line="70"/>
        <source>Kendall τ</source>
        <translation>肯德尔 τ</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="73"/>
        <source>Kendall τ of every pair of methods</source>
        <translation>每对方法之间的肯德尔 τ</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="84"/>
        <source>Kendall τ: {first} vs {second} ({count} tokens, mean {mean:.2f})</source>
        <translation>肯德尔 τ：{first} 对 {second}（{count} 个词元，均值 {mean:.2f}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/kernel.py" line="55"/>
        <source>Kernel</source>
        <translation>核</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/docks.py" line="123"/>
        <source>Kernel regression</source>
        <translation>核回归</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="97"/>
        <source>kernel regression: gaussian, boxcar, epanechnikov or constant</source>
        <translation>核回归：gaussian、boxcar、epanechnikov 或 constant</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="98"/>
        <source>kernel regression: the bandwidth h</source>
        <translation>核回归：带宽 h</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="99"/>
        <source>kernel regression: the query x (default 2.5)</source>
        <translation>核回归：查询 x（默认 2.5）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="192"/>
        <source>Kernels K(u) as functions of the distance u = (x − xᵢ)/h</source>
        <translation>核 K(u) 作为距离 u = (x − xᵢ)/h 的函数</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="639"/>
        <source>Kernels side by side</source>
        <translation>各种核的并列对比</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="45"/>
        <source>key position</source>
        <translation>键位置</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="351"/>
        <source>key width d</source>
        <translation>键的维度 d</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/computation.py" line="224"/>
        <source>key {number} &lt;b&gt;{token}&lt;/b&gt;: score {score:.3f}, weight {weight:.4f}</source>
        <translation>键 {number} &lt;b&gt;{token}&lt;/b&gt;：评分 {score:.3f}，权重 {weight:.4f}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/computation.py" line="226"/>
        <source>key {number} &lt;b&gt;{token}&lt;/b&gt;: score {score:.3f}, weight {weight:.4f} (masked)</source>
        <translation>键 {number} &lt;b&gt;{token}&lt;/b&gt;：评分 {score:.3f}，权重 {weight:.4f}（已掩蔽）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/shortcuts_dialog.py" line="42"/>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/shortcuts_dialog.py" line="45"/>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/computation.py" line="79"/>
        <location filename="../../attnviz/figures/computation.py" line="54"/>
        <location filename="../../attnviz/figures/spec.py" line="30"/>
        <source>keys</source>
        <translation>键</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="637"/>
        <source>keys ([CLS] and the patches)</source>
        <translation>键（[CLS] 和图像块）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="172"/>
        <source>keys (input tokens)</source>
        <translation>键（输入词元）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="416"/>
        <source>keys (source tokens)</source>
        <translation>键（源词元）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/scoring.py" line="150"/>
        <source>Keys from position {position} on are masked: their weight is exactly 0 and the other weights renormalize.</source>
        <translation>从位置 {position} 起的键被掩蔽：其权重恰为 0，其余权重重新归一化。</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="47"/>
        <source>keys xᵢ</source>
        <translation>键 xᵢ</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="425"/>
        <location filename="../../attnviz/gui/panels/patching.py" line="415"/>
        <source>kind and layer</source>
        <translation>注意力种类与层</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/language.py" line="105"/>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="128"/>
        <source>Large-Scale Pretraining with Transformers</source>
        <translation>基于 Transformer 的大规模预训练</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/language.py" line="111"/>
        <source>Later</source>
        <translation>稍后</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="293"/>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="165"/>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="325"/>
        <location filename="../../attnviz/figures/heads.py" line="42"/>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="106"/>
        <source>layer of the attention explained (1: nearest the input)</source>
        <translation>所解释的注意力所在的层（1：最靠近输入）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="691"/>
        <location filename="../../attnviz/figures/attention.py" line="245"/>
        <location filename="../../attnviz/figures/image.py" line="260"/>
        <source>layer {layer}</source>
        <translation>第 {layer} 层</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="472"/>
        <location filename="../../attnviz/core/learning/history.py" line="24"/>
        <location filename="../../attnviz/figures/attention.py" line="80"/>
        <source>layer {layer} · head {head}</source>
        <translation>第 {layer} 层 · 第 {head} 个头</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="25"/>
        <source>layer {layer} · mean of {heads} heads</source>
        <translation>第 {layer} 层 · {heads} 个头的平均</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/attention.py" line="79"/>
        <source>layer {layer} · {note} · head {head}</source>
        <translation>第 {layer} 层 · {note} · 第 {head} 个头</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="169"/>
        <location filename="../../attnviz/figures/image.py" line="157"/>
        <location filename="../../attnviz/gui/panels/heads.py" line="443"/>
        <source>layer {layer}, head {head}</source>
        <translation>第 {layer} 层，第 {head} 个头</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="168"/>
        <location filename="../../attnviz/gui/panels/heads.py" line="440"/>
        <source>layer {layer}, mean of the heads</source>
        <translation>第 {layer} 层，各头平均</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/attention.py" line="73"/>
        <location filename="../../attnviz/gui/panels/computation.py" line="40"/>
        <location filename="../../attnviz/gui/panels/explain.py" line="50"/>
        <source>layer {n}</source>
        <translation>第 {n} 层</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="157"/>
        <source>Layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="691"/>
        <source>layers 1–{last}</source>
        <translation>第 1–{last} 层</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="529"/>
        <location filename="../../attnviz/core/layout.py" line="638"/>
        <source>layers 1–{n}</source>
        <translation>第 1–{n} 层</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="185"/>
        <source>layers.csv's `spearman_mean` (`nan` where it has no number)</source>
        <translation>即 layers.csv 的 `spearman_mean`（没有数值时为 `nan`）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="133"/>
        <source>Layers: the RNN's GRU layers, the Transformer's encoder and decoder layers each</source>
        <translation>层数：RNN 的 GRU 层数；Transformer 的编码器和解码器各自的层数</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/positional.py" line="111"/>
        <location filename="../../attnviz/core/hf/positional.py" line="61"/>
        <location filename="../../attnviz/core/hf/positional.py" line="95"/>
        <source>learned</source>
        <translation>可学习</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="23"/>
        <source>Learned PE: {positions} positions × {width} dims</source>
        <translation>可学习位置编码：{positions} 个位置 × {width} 维</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="101"/>
        <source>learned: held-out exact match at least {level:g} % at {count} evaluations in a row</source>
        <translation>已学会：留出集上的完全匹配率连续 {count} 次评估都不低于 {level:g}%</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="99"/>
        <source>learned: held-out {score} at least {level:g} % at {count} evaluations in a row</source>
        <translation>已学会：留出集上的{score}连续 {count} 次评估都不低于 {level:g}%</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="322"/>
        <source>learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="682"/>
        <source>Learning to copy (the diagonal): the map untrained, midway and trained</source>
        <translation>学习复制（对角线）：未训练、训练中途和训练完成时的注意力图</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="683"/>
        <source>Learning to reverse (the anti-diagonal): the map untrained, midway and trained</source>
        <translation>学习反转（反对角线）：未训练、训练中途和训练完成时的注意力图</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="685"/>
        <source>Learning to rewrite dates (crossing lines): the map untrained, midway and trained</source>
        <translation>学习改写日期（交叉的线）：未训练、训练中途和训练完成时的注意力图</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="684"/>
        <source>Learning to sort (a permutation): the map untrained, midway and trained</source>
        <translation>学习排序（一个置换）：未训练、训练中途和训练完成时的注意力图</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="322"/>
        <location filename="../../attnviz/gallery.py" line="698"/>
        <source>Learning-rate schedules</source>
        <translation>学习率调度</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="53"/>
        <location filename="../../attnviz/gui/panels/heads.py" line="129"/>
        <source>least important first</source>
        <translation>先剪最不重要的</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="172"/>
        <source>least important first, or the random orders' mean</source>
        <translation>从最不重要的开始，或随机顺序的均值</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="142"/>
        <source>Leave</source>
        <translation>退出</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="73"/>
        <source>leave masked cells blank instead of marking them (as the app's 'Show masked cells' off)</source>
        <translation>掩蔽的单元格留空而不加标记（同应用中关闭“显示掩蔽单元格”）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="36"/>
        <source>leave out</source>
        <translation>留一法</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="110"/>
        <source>Leave the lecture view</source>
        <translation>退出课堂视图</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="24"/>
        <source>leave-one-out</source>
        <translation>留一法</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="25"/>
        <source>leave-one-out, total variation distance</source>
        <translation>留一法，总变差距离</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="114"/>
        <source>Lecture view &amp;keys</source>
        <translation>课堂视图按键(&amp;K)</translation>
    </message>
    <message>
        <location filename="../../attnviz/modern_gallery.py" line="136"/>
        <source>length of head 1's query</source>
        <translation>第 1 个头的查询长度</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="263"/>
        <source>Licence: MIT.</source>
        <translation>许可证：MIT。</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/shared.py" line="56"/>
        <location filename="../../attnviz/core/patching/pairs.py" line="36"/>
        <source>line {line}: </source>
        <translation>第 {line} 行：</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/pairs.py" line="50"/>
        <source>line {line}: a pair is four fields separated by tabs, clean, corrupt, answer and alternative; this line has {count}</source>
        <translation>第 {line} 行：一对是用制表符分隔的四个字段：干净、损坏、答案和备选；这一行有 {count} 个</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/pairs.py" line="47"/>
        <source>line {line}: longer than {most:,} bytes</source>
        <translation>第 {line} 行：超过 {most:,} 字节</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/pairs.py" line="73"/>
        <source>line {line}: not UTF-8 text</source>
        <translation>第 {line} 行：不是 UTF-8 文本</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/pairs.py" line="54"/>
        <source>line {line}: the answer and the alternative are the same token</source>
        <translation>第 {line} 行：答案和备选是同一个词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/fill_mask.py" line="41"/>
        <source>line {number}: </source>
        <translation>第 {number} 行：</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/shared.py" line="240"/>
        <source>line {number}: bytes that are not UTF-8 were replaced by U+FFFD</source>
        <translation>第 {number} 行：非 UTF-8 的字节已替换为 U+FFFD</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/analysis.py" line="86"/>
        <source>Load a Hugging Face language model (decoder-only or encoder-only) to map its heads over documents.</source>
        <translation>请加载一个 Hugging Face 语言模型（仅解码器或仅编码器），以便在文档上绘制其各头的图谱。</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/patching.py" line="58"/>
        <source>Load a model that reads sentences (attnviz's Transformer or decoder-only model, a Hugging Face folder) to patch its heads.</source>
        <translation>请加载一个读句子的模型（attnviz 的 Transformer 或仅解码器模型、Hugging Face 文件夹）来修补它的头。</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/panels.py" line="227"/>
        <source>Load a translation model to decode a batch.</source>
        <translation>请先加载翻译模型，再进行批量解码。</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/analysis.py" line="59"/>
        <source>Load a translation model to map its heads over a corpus.</source>
        <translation>请先加载一个翻译模型，才能在语料上绘制它的头图谱。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/book_dialog.py" line="80"/>
        <source>Load the model and open the panel that shows this figure, so you can change the sentence, the head or the bandwidth</source>
        <translation>加载模型并打开显示此图的面板，以便更改句子、头或带宽</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/status_bar.py" line="156"/>
        <source>Loaded {label}: {kind}, {count:,} parameters{extra}</source>
        <translation>已加载 {label}：{kind}，{count:,} 个参数{extra}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/status_bar.py" line="155"/>
        <source>Loaded {label}: {kind}, {count:,} parameter{extra}</source>
        <translation>已加载 {label}：{kind}，{count:,} 个参数{extra}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="318"/>
        <location filename="../../attnviz/commands/explain_images.py" line="83"/>
        <location filename="../../attnviz/commands/heads.py" line="194"/>
        <source>loading {checkpoint}</source>
        <translation>正在加载 {checkpoint}</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/images.py" line="257"/>
        <location filename="../../attnviz/session/panels.py" line="168"/>
        <location filename="../../attnviz/session/session.py" line="109"/>
        <source>Loading {name}…</source>
        <translation>正在加载 {name}…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/attention.py" line="270"/>
        <location filename="../../attnviz/gui/panels/masks.py" line="36"/>
        <location filename="../../attnviz/gui/panels/masks.py" line="37"/>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <location filename="../../attnviz/app.py" line="53"/>
        <source>log file (default: attnviz.log in the app's data folder)</source>
        <translation>日志文件（默认：应用数据文件夹中的 attnviz.log）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="694"/>
        <source>Logit soft-capping (Gemma 2): scores squashed by tanh so no key can take the whole row</source>
        <translation>对数几率软截顶（Gemma 2）：用 tanh 压缩评分，任何一个键都无法独占整行</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="77"/>
        <location filename="../../attnviz/gallery.py" line="165"/>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="234"/>
        <source>loss {loss:.3f}, </source>
        <translation>损失 {loss:.3f}，</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="22"/>
        <source>loss {loss:.3g}</source>
        <translation>损失 {loss:.3g}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="259"/>
        <source>m_clean: logit(answer) − logit(alternative) on the clean input</source>
        <translation>m_clean：干净输入上的 logit(答案) − logit(备选)</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="260"/>
        <source>m_corrupt: the same on the corrupt input</source>
        <translation>m_corrupt：损坏输入上的同一量</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="221"/>
        <source>machine {node} was started with other options than machine 0 ({differences}): every machine runs the same command, only --node-rank differs</source>
        <translation>机器 {node} 启动时的选项与 0 号机器不同（{differences}）：每台机器运行同一条命令，只有 --node-rank 不同</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="130"/>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="107"/>
        <source>Map heads</source>
        <translation>绘制头图谱</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/analysis.py" line="115"/>
        <source>Map the heads over a corpus first: the pruning curve follows their importance.</source>
        <translation>请先在语料上绘制头图谱：剪枝曲线按头的重要性排序。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="117"/>
        <location filename="../../attnviz/gui/panels/heads.py" line="237"/>
        <source>Map the heads over a corpus: every head's statistics, and which ones matter</source>
        <translation>在语料上绘制头图谱：每个头的统计量，以及哪些头重要</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="235"/>
        <source>Map the heads over a folder of images: how far each head looks, how spread it is, how much it gives [CLS]</source>
        <translation>在一个图像文件夹上绘制各头图谱：每个头看得多远、多分散、给 [CLS] 多少</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/analysis.py" line="105"/>
        <source>Mapping the heads over documents…</source>
        <translation>正在文档上绘制各头的图谱…</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/analysis.py" line="78"/>
        <location filename="../../attnviz/session/images.py" line="179"/>
        <source>Mapping the heads…</source>
        <translation>正在绘制头图谱…</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/long_prompt.py" line="43"/>
        <source>maps on demand are for Hugging Face decoder-only, encoder-only and encoder–decoder folders; {name} is a {kind} model</source>
        <translation>按需计算的图适用于 Hugging Face 仅解码器、仅编码器和编码器－解码器文件夹；{name} 是 {kind} 模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="616"/>
        <source>mask</source>
        <translation>掩蔽</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/computation.py" line="84"/>
        <source>Mask: may the query attend to key j? (1 = yes)</source>
        <translation>掩码：查询能否关注键 j？（1 = 能）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/head_grid.py" line="235"/>
        <location filename="../../attnviz/gui/heatmap_readout.py" line="41"/>
        <source>masked</source>
        <translation>已掩蔽</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/demo.py" line="50"/>
        <source>masked softmax of scores [2, 1, 0.5, 3, -1] with valid length 3:</source>
        <translation>评分 [2, 1, 0.5, 3, -1] 在有效长度 3 下的掩蔽 softmax 操作：</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="233"/>
        <source>Masked softmax with a valid length per query (2-D valid lengths)</source>
        <translation>每个查询各有一个有效长度的掩蔽 softmax 操作（二维有效长度）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="643"/>
        <source>Masked softmax, a valid length per query</source>
        <translation>掩蔽 softmax 操作，每个查询一个有效长度</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="642"/>
        <source>Masked softmax, valid lengths 2 and 3</source>
        <translation>掩蔽 softmax 操作，有效长度为 2 和 3</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="222"/>
        <source>Masked softmax: two sequences, valid lengths 2 and 3</source>
        <translation>掩蔽 softmax 操作：两个序列，有效长度为 2 和 3</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/scoring.py" line="59"/>
        <source>Masking:</source>
        <translation>掩蔽：</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/docks.py" line="125"/>
        <source>Masks</source>
        <translation>掩码</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="242"/>
        <location filename="../../attnviz/figures/image.py" line="276"/>
        <source>mean attention distance (pixels)</source>
        <translation>平均注意力距离（像素）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="678"/>
        <source>Mean attention distance by depth (the ViT paper's Figure 7)</source>
        <translation>平均注意力距离随深度的变化（ViT 论文图 7）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="533"/>
        <source>Mean attention distance by depth, over the {count} sample images</source>
        <translation>平均注意力距离随深度的变化，基于 {count} 张示例图像</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="147"/>
        <source>Mean attention distance by layer</source>
        <translation>逐层平均注意力距离</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads_images.py" line="75"/>
        <source>mean attention distance by layer, pixels (heads averaged): {distances}</source>
        <translation>各层的平均注意力距离（像素，各头平均）：{distances}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="194"/>
        <source>mean attention distance in pixels of the model's input: for a patch's query, the distance between its centre and each patch's centre weighted by the attention, renormalised over the patches ([CLS] and the other special positions have no place on the image); the mean over every patch query (Dosovitskiy et al. 2021, Figure 7)</source>
        <translation>以模型输入的像素计的平均注意力距离：对一个图块的查询，其中心到每个图块中心的距离按注意力加权，权重在各图块上重新归一化（[CLS] 和其他特殊位置在图像上没有位置）；再对所有图块查询取平均（Dosovitskiy 等 2021，图 7）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="537"/>
        <source>mean attention distance {value:.1f} px</source>
        <translation>平均注意力距离 {value:.1f} 像素</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="16"/>
        <location filename="../../attnviz/figures/image.py" line="243"/>
        <source>mean entropy of a row (nats)</source>
        <translation>每行的平均熵（奈特）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="66"/>
        <source>mean entropy of a row, −Σ w ln w, in nats</source>
        <translation>每行的平均熵 −Σ w ln w，单位奈特</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="190"/>
        <source>mean entropy of a row, −Σ w ln w, in nats, over every query ([CLS] and the patches)</source>
        <translation>一行的平均熵 −Σ w ln w，单位为奈特，对所有查询（[CLS] 和各图像块）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain_images.py" line="119"/>
        <source>mean Kendall τ over the images: {pairs}</source>
        <translation>各图像上的平均 Kendall τ：{pairs}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="128"/>
        <source>mean Kendall τ-b of the two rows over those tokens</source>
        <translation>这些词元上两行的肯德尔 τ-b 均值</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="67"/>
        <source>mean largest weight of a row, every key included</source>
        <translation>每行最大权重的均值，包含所有键</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="379"/>
        <source>mean of heads</source>
        <translation>各头平均</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="272"/>
        <location filename="../../attnviz/gui/panels/heads.py" line="153"/>
        <source>mean of the heads</source>
        <translation>各头平均</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="153"/>
        <source>mean share of the attention weight (heads' mean) on those keys, over the tokens whose keys hold one; `no such key` where none does: the source of attnviz's own translators has no end token, a decoder's prefix never holds &lt;eos&gt;</source>
        <translation>注意力权重（各头均值）落在这些键上的比例，在键中含有此类词元的词元上取平均；没有时为 `no such key`：attnviz 自己的翻译模型源句没有结束词元，解码器的前缀中也从不含 &lt;eos&gt;</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="217"/>
        <source>mean share of the row's attention weight on those keys, Σ_{j∈keys} α_ij</source>
        <translation>该行注意力权重落在这些键上的平均份额，Σ_{j∈keys} α_ij</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="132"/>
        <source>mean Spearman ρ</source>
        <translation>斯皮尔曼 ρ 的均值</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="143"/>
        <source>mean Spearman ρ of the method's row with the reference's row (`no token with an order` where every row was constant)</source>
        <translation>该方法的行与参照方法的行之间斯皮尔曼 ρ 的均值（所有行都是常数时为 `no token with an order`）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="107"/>
        <source>mean Spearman ρ over the tokens</source>
        <translation>各词元 Spearman ρ 的均值</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="86"/>
        <source>mean squared error</source>
        <translation>均方误差</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="191"/>
        <source>mean weight a patch's query puts on [CLS]</source>
        <translation>图像块的查询放在 [CLS] 上的平均权重</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="192"/>
        <source>mean weight a patch's query puts on the other positions without a place on the image: a distillation token, register tokens (0 for a model with only [CLS])</source>
        <translation>一个图块的查询放在图像上没有位置的其他位置上的平均权重：蒸馏词元、寄存器词元（只有 [CLS] 的模型为 0）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="81"/>
        <source>mean weight on punctuation keys</source>
        <translation>标点键上的平均权重</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="79"/>
        <source>mean weight on the end of the source (0 where the keys hold no source: a Transformer's dec-self)</source>
        <translation>源句末尾上的平均权重（键中没有源句时为 0：Transformer 的 dec-self）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="77"/>
        <source>mean weight on the first key (`&lt;bos&gt;` in a decoder, the first source token in an encoder)</source>
        <translation>第一个键上的平均权重（解码器中为 `&lt;bos&gt;`，编码器中为源句第一个词元）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="76"/>
        <source>mean weight on the first key, the end of the source and punctuation together</source>
        <translation>第一个键、源句末尾和标点合计的平均权重</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="74"/>
        <source>mean weight on the key at the query's own position</source>
        <translation>查询自身位置的键上的平均权重</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="75"/>
        <source>mean weight on the key one position after the query's own</source>
        <translation>查询自身位置后一个位置的键上的平均权重</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="73"/>
        <source>mean weight on the key one position before the query's own (cross: the target position)</source>
        <translation>查询自身位置前一个位置的键上的平均权重（cross：以目标位置计）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="24"/>
        <source>mean |query − key| distance (positions)</source>
        <translation>平均 |查询 − 键| 距离（位置数）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="82"/>
        <source>mean |query − key| distance, in positions, weighted by the attention</source>
        <translation>以注意力加权的平均 |查询 − 键| 距离，单位为位置</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="17"/>
        <source>meaning</source>
        <translation>含义</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/shortcuts_dialog.py" line="45"/>
        <source>Menu</source>
        <translation>菜单</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="46"/>
        <location filename="../../attnviz/figures/explain.py" line="75"/>
        <location filename="../../attnviz/figures/explain.py" line="75"/>
        <source>method</source>
        <translation>方法</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="576"/>
        <source>midway: step {step:,} · agreement {agreement:.0f} %</source>
        <translation>训练中途：第 {step:,} 步 · 对齐一致率 {agreement:.0f}%</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/patch.py" line="52"/>
        <source>minimal pairs, one a line: clean&lt;TAB&gt;corrupt&lt;TAB&gt;answer&lt;TAB&gt;alternative; both sides must read as the same number of tokens</source>
        <translation>最小对，每行一对：干净&lt;TAB&gt;损坏&lt;TAB&gt;答案&lt;TAB&gt;备选；两侧必须读作相同数量的词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="159"/>
        <source>Minutes</source>
        <translation>分钟</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/hf_dialog.py" line="25"/>
        <location filename="../../attnviz/gui/panels/train.py" line="155"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="114"/>
        <source>model output</source>
        <translation>模型输出</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/pairs.py" line="57"/>
        <source>more than {most:,} pairs: split the file</source>
        <translation>超过 {most:,} 对：请拆分文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="253"/>
        <source>more than {most} steps</source>
        <translation>超过 {most} 步</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="122"/>
        <location filename="../../attnviz/figures/editions.py" line="122"/>
        <source>Multi-Head Attention</source>
        <translation>多头注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="651"/>
        <source>Multi-head attention: every head of every layer</source>
        <translation>多头注意力：每一层的每一个头</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="445"/>
        <source>Multi-head self-attention</source>
        <translation>多头自注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="328"/>
        <source>Nadaraya–Watson kernel regression (attention pooling)</source>
        <translation>Nadaraya-Watson 核回归（注意力汇聚）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/demo.py" line="37"/>
        <source>Nadaraya–Watson kernel regression on f(x) = 2 sin x + x^0.8 (50 noisy points)</source>
        <translation>在 f(x) = 2 sin x + x^0.8 上的 Nadaraya-Watson 核回归（50 个带噪声的点）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="158"/>
        <source>Nadaraya–Watson predictions ({kernel} kernel, h = {bandwidth:.2f})</source>
        <translation>Nadaraya-Watson 预测（{kernel} 核，h = {bandwidth:.2f}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="624"/>
        <source>Nadaraya–Watson: training data and the true function</source>
        <translation>Nadaraya-Watson：训练数据与真实函数</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/image_tasks.py" line="171"/>
        <source>name the bright shape among dim clutter</source>
        <translation>在暗淡的杂物中说出那个明亮形状的名字</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="104"/>
        <source>Next &amp;head</source>
        <translation>下一个头(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="108"/>
        <source>Next attention &amp;kind</source>
        <translation>下一种注意力(&amp;K)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="106"/>
        <source>Next la&amp;yer</source>
        <translation>下一层(&amp;Y)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="296"/>
        <source>next token</source>
        <translation>下一个词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="182"/>
        <location filename="../../attnviz/gui/decoding_area.py" line="337"/>
        <source>Next-token probabilities at this step</source>
        <translation>这一步下一个词元的概率</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="733"/>
        <source>no book figure matches {only}; sections: {numbers} ({other_name}: {others}), paper; keys: {keys}</source>
        <translation>没有与 {only} 匹配的书中图表；节：{numbers}（{other_name}：{others}）、paper；标识：{keys}</translation>
    </message>
    <message>
        <location filename="../../attnviz/modern_gallery.py" line="148"/>
        <source>no cap: s</source>
        <translation>不截顶：s</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="55"/>
        <source>No causal mask: this RNN decoder reads its prefix through its state</source>
        <translation>没有因果掩蔽：此 RNN 解码器通过其状态读取前缀</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="335"/>
        <source>No cell is empty: a value that does not exist says why (`n/a`, `none`, `no such key`, `no token with an order`; each column says when).</source>
        <translation>没有空单元格：不存在的值会说明原因（`n/a`、`none`、`no such key`、`no token with an order`；各列说明何时出现）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="212"/>
        <source>no classifier head</source>
        <translation>没有分类头</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/compare.py" line="63"/>
        <source>No difference map: the two models read the sentence differently (a different length limit)</source>
        <translation>无差异图：两个模型读取句子的方式不同（长度上限不同）</translation>
    </message>
    <message>
        <location filename="../../attnviz/app.py" line="87"/>
        <source>no display found (DISPLAY and WAYLAND_DISPLAY are unset): run attnviz on a desktop, under xvfb-run, or use a command such as 'attnviz export' (attnviz --help)</source>
        <translation>未找到显示器（DISPLAY 和 WAYLAND_DISPLAY 均未设置）：请在桌面环境中或用 xvfb-run 运行 attnviz，或使用 'attnviz export' 之类的命令（attnviz --help）</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/figure_files.py" line="190"/>
        <source>no export format given; choose from {formats}</source>
        <translation>未指定导出格式；请从 {formats} 中选择</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/flipbook.py" line="369"/>
        <source>no flip-book file to write: give a PDF or a GIF path</source>
        <translation>没有要写入的翻页动画文件：请给出 PDF 或 GIF 路径</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="339"/>
        <source>No head patched: Ctrl+click a head to patch it into the decoding on show</source>
        <translation>没有修补的头：Ctrl+单击一个头，把它修补进当前显示的解码</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="218"/>
        <location filename="../../attnviz/gui/panels/train.py" line="642"/>
        <source>no history yet</source>
        <translation>尚无历史</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/scoring.py" line="153"/>
        <source>No key is masked (the real valid length).</source>
        <translation>没有键被掩蔽（真实的有效长度）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="143"/>
        <source>no limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/hf_dialog.py" line="169"/>
        <source>No models in the cache here. Choose a model folder instead.</source>
        <translation>此缓存中没有模型。请改为选择一个模型文件夹。</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/patch.py" line="146"/>
        <location filename="../../attnviz/session/patching.py" line="79"/>
        <source>no pair could be patched</source>
        <translation>没有一对可以修补</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="110"/>
        <source>No position vectors to compare: this model adds a bias to the scores instead</source>
        <translation>没有可比较的位置向量：此模型改为在评分上加偏置</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/variants.py" line="77"/>
        <location filename="../../attnviz/core/hf/variants.py" line="84"/>
        <source>no positions</source>
        <translation>无位置</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="251"/>
        <source>no references in {path}: the importance uses the model's own output as the target, and there is no pruning curve</source>
        <translation>{path} 中没有参考译文：重要性以模型自己的输出为目标，且没有剪枝曲线</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/bleu.py" line="52"/>
        <source>no sentences to score</source>
        <translation>没有可评分的句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/resume.py" line="107"/>
        <source>no training state at {path}: there is nothing to resume (a run writes it after each epoch and removes it when its schedule is done)</source>
        <translation>{path} 处没有训练状态：没有可继续的运行（训练在每个迭代周期结束后写入状态，并在整个调度完成后删除它）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/user_guide.py" line="24"/>
        <source>No web browser could open the user guide: open {path} in one.</source>
        <translation>没有网页浏览器能打开用户指南：请用浏览器打开 {path}。</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/fill_mask.py" line="45"/>
        <source>no {mask} to fill: write {mask} in place of a word</source>
        <translation>没有可填的 {mask}：请把某个词换成 {mask}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="39"/>
        <source>noise: share lost, head from the corrupt run</source>
        <translation>noise：失去的份额，头来自损坏运行</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="164"/>
        <location filename="../../attnviz/gui/panels/kernel.py" line="29"/>
        <location filename="../../attnviz/gui/panels/kernel.py" line="71"/>
        <source>non-parametric</source>
        <translation>非参数</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="139"/>
        <source>non-parametric ({kernel}, h = {bandwidth:.2f})</source>
        <translation>非参数（{kernel}，h = {bandwidth:.2f}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="142"/>
        <source>Non-parametric attention pooling (Gaussian kernel, h = 1)</source>
        <translation>非参数注意力汇聚（高斯核，h = 1）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="629"/>
        <source>Non-parametric attention pooling: prediction</source>
        <translation>非参数注意力汇聚：预测</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="631"/>
        <source>Non-parametric attention pooling: weights</source>
        <translation>非参数注意力汇聚：权重</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="149"/>
        <source>Non-parametric pooling weights (test × train, Gaussian, h = 1)</source>
        <translation>非参数汇聚的权重（测试 × 训练，高斯核，h = 1）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="34"/>
        <source>norm</source>
        <translation>范数</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="21"/>
        <source>norm-based attention</source>
        <translation>基于范数的注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="84"/>
        <source>normalised importance</source>
        <translation>归一化重要性</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/header.py" line="38"/>
        <source>not a readable safetensors file (its first bytes are not a safetensors header)</source>
        <translation>不是可读的 safetensors 文件（开头的字节不是 safetensors 文件头）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/header.py" line="35"/>
        <source>not a readable safetensors file (only {size} bytes)</source>
        <translation>不是可读的 safetensors 文件（只有 {size} 字节）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/safe_output.py" line="50"/>
        <source>not a regular file</source>
        <translation>非普通文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/header.py" line="27"/>
        <source>not a regular file (a pipe or a device?)</source>
        <translation>不是普通文件（是管道还是设备？）</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="14"/>
        <source>not allowed with argument %s</source>
        <translation>不能与参数 %s 同时使用</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="233"/>
        <source>not an attnviz session (no "format": "attnviz-session")</source>
        <translation>不是 attnviz 会话（没有 "format": "attnviz-session"）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="657"/>
        <source>Not at this length: {tokens} tokens. An input this long has its maps computed one at a time, for the Attention view (pick a layer and head there).</source>
        <translation>此长度下不显示：{tokens} 个词元。如此长的输入只为注意力视图逐个计算注意力图（请在那里选择层和头）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="23"/>
        <source>Not in the book</source>
        <translation>补充图</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="22"/>
        <source>not in the book</source>
        <translation>补充图</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/data.py" line="32"/>
        <source>not UTF-8</source>
        <translation>不是 UTF-8</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/train.py" line="173"/>
        <location filename="../../attnviz/training/vision.py" line="191"/>
        <source>note: the training state could not be saved to {path} ({error}); this run cannot be resumed from here</source>
        <translation>注意：无法把训练状态保存到 {path}（{error}）；本次运行无法从这里继续</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/train.py" line="118"/>
        <source>note: {count:,} line of {name} skipped: {reasons}</source>
        <translation>注意：跳过了 {name} 中的 {count:,} 行：{reasons}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/train.py" line="117"/>
        <source>note: {count:,} lines of {name} skipped: {reasons}</source>
        <translation>注意：跳过了 {name} 中的 {count:,} 行：{reasons}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/train.py" line="121"/>
        <source>note: {count} distinct source sentences are too few to hold out a validation split (10 or more are needed); BLEU is measured on the training pairs</source>
        <translation>注意：只有 {count} 个不同的源句子，太少，无法留出验证集（至少需要 10 个）；BLEU 在训练句对上计算</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/limits.py" line="145"/>
        <source>num_heads = {heads} does not divide num_hiddens = {width}</source>
        <translation>num_heads = {heads} 不能整除 num_hiddens = {width}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="300"/>
        <source>number</source>
        <translation>数</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="47"/>
        <source>number (peut/peuvent)</source>
        <translation>单复数（peut/peuvent）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="40"/>
        <source>NumPy array (*.npy)</source>
        <translation>NumPy 数组 (*.npy)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="35"/>
        <source>occlusion</source>
        <translation>遮挡</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="23"/>
        <source>occlusion (&lt;unk&gt;)</source>
        <translation>遮挡（&lt;unk&gt;）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="138"/>
        <source>occlusion (each input token replaced by `&lt;unk&gt;`, an image's patch made black) or ig (integrated gradients)</source>
        <translation>occlusion（每个输入词元替换为 `&lt;unk&gt;`，图像的图块涂黑）或 ig（积分梯度）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/hf_dialog.py" line="25"/>
        <source>On disk</source>
        <translation>磁盘占用</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="61"/>
        <source>one attention head (its statistics are means over every attention row of the decoded corpus)</source>
        <translation>一个注意力头（其统计量是解码语料中每个注意力行的均值）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="187"/>
        <source>one attention head of an image model over a folder of images (means over every image)</source>
        <translation>图像模型在一个图像文件夹上的一个注意力头（对所有图像取平均）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="236"/>
        <source>one attention head, its shares averaged over the pairs (a pair whose clean and corrupt logit differences are within 0.001 moves nothing and is left out; `n/a`: no pair left; `not computed`: a measure --measures left out)</source>
        <translation>一个注意力头，其份额在各对上取平均（干净与损坏的 logit 差相差不到 0.001 的一对没有可移动的，被略去；`n/a`：没有剩下的对；`not computed`：--measures 未包含的量）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="136"/>
        <source>one attention-based method, one reference method and one layer (Abnar &amp; Zuidema 2020's table)</source>
        <translation>一种基于注意力的方法、一种参照方法和一层（Abnar &amp; Zuidema 2020 的表格）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="176"/>
        <source>one bin of the histogram of Kendall τ of methods A and B over the tokens</source>
        <translation>方法 A 与 B 在各词元上的肯德尔 τ 直方图中的一个区间</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/documents.py" line="214"/>
        <source>one document of {tokens:,} tokens alone runs {device} out of memory: give shorter documents</source>
        <translation>一篇 {tokens:,} 个词元的文档单独就让 {device} 内存不足：请给出更短的文档</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="529"/>
        <source>one head</source>
        <translation>一个头</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="165"/>
        <source>one head in an importance figure (its numbers)</source>
        <translation>重要性图中的一个头（图中的数值）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="200"/>
        <source>one head, one bin of query positions and one class of keys (attention sinks, StreamingLLM; Kobayashi et al. 2020's norm view)</source>
        <translation>一个头、一个查询位置区间和一类键（注意力汇聚点，StreamingLLM；Kobayashi 等 2020 的范数视角）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="159"/>
        <source>one kind of attention's layer in one atlas figure (with `--format csv`: its numbers)</source>
        <translation>某一注意力种类在某个图谱图中的一层（使用 `--format csv` 时：图中的数值）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="148"/>
        <source>one kind of attention, one layer and one class of keys (Kobayashi et al. 2020)</source>
        <translation>一种注意力、一层和一类键（Kobayashi 等 2020）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="222"/>
        <source>one layer in a sinks figure (its numbers, --format csv): the share on the first position</source>
        <translation>汇聚点图中的一层（其数值，--format csv）：第一个位置上的份额</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="229"/>
        <source>one layer in one kind's sinks figure (`attnviz heads` over decoded sentences, --format csv; KIND: enc-self, dec-self or cross): the share on the first position</source>
        <translation>某一种注意力的汇聚点图中的一层（`attnviz heads` 基于解码出的句子，--format csv；KIND：enc-self、dec-self 或 cross）：第一个位置上的份额</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="288"/>
        <source>one layer of an image model (its heads averaged)</source>
        <translation>图像模型的一层（各头平均）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="181"/>
        <source>one method and one layer of the per-layer curves against REFERENCE (layers.csv, as plotted)</source>
        <translation>与 REFERENCE 比较的逐层曲线中的一种方法和一层（即 layers.csv，按图中所画）</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="15"/>
        <source>one of the arguments %s is required</source>
        <translation>参数 %s 中必须给出一个</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="250"/>
        <source>one pair and one head (`not computed`: a measure --measures left out)</source>
        <translation>一对和一个头（`not computed`：--measures 未包含的量）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="118"/>
        <source>one pair of explanation methods over every explained token (an image model: every image)</source>
        <translation>一对解释方法在所有被解释词元上的结果（图像模型：所有图像）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="278"/>
        <source>one pair, one layer and one input position of the residual stream (written when --measures holds residual)</source>
        <translation>一对、一层和残差流中的一个输入位置（仅当 --measures 包含 residual 时写出）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="171"/>
        <source>one point of the pruning curves (pruning.csv's BLEU, as plotted)</source>
        <translation>剪枝曲线上的一个点（即 pruning.csv 的 BLEU，按图中所画）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="412"/>
        <source>One query recomputed: cross-attention layer {layer} · head {head} · query {query!r} (largest difference {difference:.0e})</source>
        <translation>重算一个查询：编码器－解码器注意力，第 {layer} 层 · 第 {head} 个头 · 查询 {query!r}（最大差异 {difference:.0e}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="17"/>
        <source>One row: {row}.</source>
        <translation>每行：{row}。</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/fill_mask.py" line="22"/>
        <source>one sentence with [MASK] (or the tokenizer's own mask token); without it, read stdin</source>
        <translation>一个含 [MASK]（或分词器自己的掩蔽词元）的句子；不给则读标准输入</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="195"/>
        <source>one sentence's explanation runs {device} out of memory even one variant at a time: give shorter sentences or another --device</source>
        <translation>即使每次只算一个变体，解释一个句子也会使 {device} 内存不足：请给出更短的句子或换一个 --device</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/translate.py" line="29"/>
        <source>one sentence; without it, read stdin</source>
        <translation>一个句子；不给出时读取标准输入</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="59"/>
        <source>one source sentence a line, or source&lt;TAB&gt;reference lines (references give the pruning curve); for an image model, a folder of images</source>
        <translation>每行一个源句子，或每行“源句子&lt;TAB&gt;参考译文”（有参考译文才有剪枝曲线）；图像模型则为一个图像文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="227"/>
        <source>One source sentence a line, or source&lt;TAB&gt;reference lines (then the pruning curve can measure BLEU)</source>
        <translation>每行一个源句子，或每行“源句子&lt;TAB&gt;参考译文”（这样剪枝曲线才能计算 BLEU）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="294"/>
        <source>Opacity</source>
        <translation>不透明度</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="85"/>
        <source>Open &amp;Hugging Face model…</source>
        <translation>打开 Hugging Face 模型(&amp;H)…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="88"/>
        <source>Open &amp;image…</source>
        <translation>打开图像(&amp;I)…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/positional.py" line="114"/>
        <source>Open a checkpoint</source>
        <translation>打开一个检查点</translation>
    </message>
    <message>
        <location filename="../../attnviz/app.py" line="111"/>
        <source>Open a checkpoint (Ctrl+O) to begin.</source>
        <translation>打开一个检查点（Ctrl+O）即可开始。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/attention.py" line="272"/>
        <source>Open a checkpoint to see attention</source>
        <translation>打开一个检查点以查看注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="252"/>
        <source>Open a PNG, JPEG, WebP, BMP or GIF image (or drop one on the window)</source>
        <translation>打开 PNG、JPEG、WebP、BMP 或 GIF 图像（或把图像拖到窗口上）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="222"/>
        <source>Open an image</source>
        <translation>打开一张图像</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="306"/>
        <location filename="../../attnviz/gui/panels/image.py" line="436"/>
        <source>Open an image, or pick a sample</source>
        <translation>打开一张图像，或选一张示例图像</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/file_opening.py" line="53"/>
        <source>Open checkpoint</source>
        <translation>打开检查点</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/hf_dialog.py" line="75"/>
        <source>Open Hugging Face model</source>
        <translation>打开 Hugging Face 模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/file_opening.py" line="76"/>
        <source>Open image</source>
        <translation>打开图像</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="251"/>
        <source>Open image…</source>
        <translation>打开图像…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="72"/>
        <source>Open sess&amp;ion…</source>
        <translation>打开会话(&amp;I)…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/file_opening.py" line="164"/>
        <source>Open session</source>
        <translation>打开会话</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/file_opening.py" line="130"/>
        <source>Opening the session {name}…</source>
        <translation>正在打开会话 {name}…</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/session.py" line="101"/>
        <source>Opening the shipped model {name} instead.</source>
        <translation>改为打开内置模型 {name}。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="361"/>
        <source>Operations per layer as the sequence grows (d = 512; Table 1 of the paper)</source>
        <translation>每层运算量随序列增长的变化（d = 512；论文表 1）</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="12"/>
        <source>options</source>
        <translation>选项</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/compare.py" line="36"/>
        <source>Other checkpoint…</source>
        <translation>其他检查点…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/compare.py" line="37"/>
        <source>Other Hugging Face model…</source>
        <translation>其他 Hugging Face 模型…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="541"/>
        <source>other specials' share {value:.1%}</source>
        <translation>其他特殊位置占比 {value:.1%}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/beam_search.py" line="278"/>
        <source>out of memory on {device}: batches of at most {rows} sentences from now on</source>
        <translation>{device} 内存不足：此后每批最多 {rows} 个句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="202"/>
        <location filename="../../attnviz/core/hf/documents.py" line="221"/>
        <source>out of memory on {device}: batches of {tokens:,} tokens from now on</source>
        <translation>{device} 内存不足：此后每批 {tokens:,} 个词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="50"/>
        <source>output tokens</source>
        <translation>输出词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/data.py" line="35"/>
        <source>over the length limits</source>
        <translation>超出长度限制</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/data.py" line="33"/>
        <source>over {kib} KiB</source>
        <translation>超过 {kib} KiB</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/batch.py" line="38"/>
        <source>Pad the sentences to the longest and decode them together (greedy)</source>
        <translation>将句子填充到最长句子的长度并一起解码（贪心搜索）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="30"/>
        <source>Padding mask</source>
        <translation>填充掩码</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/batch.py" line="75"/>
        <source>Padding mask of a batch</source>
        <translation>批量的填充掩码</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="44"/>
        <source>Padding mask of the batch: valid lengths {lengths}</source>
        <translation>批量的填充掩码：有效长度 {lengths}</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="33"/>
        <source>Padding mask: valid length {length}</source>
        <translation>填充掩码：有效长度 {length}</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/flipbook.py" line="105"/>
        <source>page {page} of the PDF could not be started</source>
        <translation>无法开始写入 PDF 的第 {page} 页</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="181"/>
        <source>Pair</source>
        <translation>最小对</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/positional.py" line="84"/>
        <source>pair i</source>
        <translation>维度对 i</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="177"/>
        <source>Pairs</source>
        <translation>最小对</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="501"/>
        <source>Pairs (*.tsv *.txt);;All files (*)</source>
        <translation>最小对 (*.tsv *.txt);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="92"/>
        <source>paper {where}</source>
        <translation>论文 {where}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="320"/>
        <source>paper: warm-up, then 1/√step (d_model 512, 4000 warm-up)</source>
        <translation>论文：先预热，再按 1/√step 衰减（d_model 512，预热 4000 步）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/hf_dialog.py" line="25"/>
        <source>Parameters (about)</source>
        <translation>参数量（约）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="165"/>
        <location filename="../../attnviz/gui/panels/kernel.py" line="29"/>
        <source>parametric</source>
        <translation>带参数</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="156"/>
        <source>parametric (learned w = {w:.2f})</source>
        <translation>带参数（学到的 w = {w:.2f}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/kernel.py" line="72"/>
        <source>parametric (learned w)</source>
        <translation>带参数（学到的 w）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="122"/>
        <source>parametric (w = {w:.2f})</source>
        <translation>带参数（w = {w:.2f}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="173"/>
        <source>Parametric attention pooling (learned w = {w:.2f})</source>
        <translation>带参数注意力汇聚（学到的 w = {w:.2f}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="635"/>
        <source>Parametric attention pooling: prediction</source>
        <translation>带参数注意力汇聚：预测</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="165"/>
        <location filename="../../attnviz/gallery.py" line="633"/>
        <source>Parametric attention pooling: training loss</source>
        <translation>带参数注意力汇聚：训练损失</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="637"/>
        <source>Parametric attention pooling: weights</source>
        <translation>带参数注意力汇聚：权重</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="182"/>
        <source>Parametric pooling weights: sharper than the non-parametric ones</source>
        <translation>带参数汇聚的权重：比非参数汇聚的更集中</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="308"/>
        <source>Passes over the 8,192 training examples (or the file's pairs); a run on a task stops earlier once it has learned: held-out exact match at least {level:g} % at {count} evaluations in a row</source>
        <translation>迭代周期数：遍历 8,192 个训练样本（或文件中的句对）的次数；任务上的训练一旦学会就会提前停止：留出集上的完全匹配率连续 {count} 次评估都不低于 {level:g}%</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="139"/>
        <source>Passes over the 8,192 training examples (the kernel regression: SGD steps)</source>
        <translation>迭代周期数：遍历 8,192 个训练样本的次数（核回归：SGD 步数）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="41"/>
        <source>passes over the data (default {epochs}; kernel-regression {kernel_epochs})</source>
        <translation>遍历数据的迭代周期数（默认 {epochs}；核回归为 {kernel_epochs}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="49"/>
        <source>patch column</source>
        <translation>图像块列</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="134"/>
        <source>patch columns</source>
        <translation>图块列</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="161"/>
        <source>Patch none</source>
        <translation>不修补任何头</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="49"/>
        <source>patch row</source>
        <translation>图像块行</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="134"/>
        <source>patch rows</source>
        <translation>图块行</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="103"/>
        <source>Patch this head into the decoding on show</source>
        <translation>把这个头修补进当前显示的解码</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="102"/>
        <source>Patch this head no more</source>
        <translation>不再修补这个头</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="336"/>
        <source>Patched: {heads} — “{corrupt}” is decoded with their outputs from “{clean}”</source>
        <translation>已修补：{heads}——解码“{corrupt}”时，这些头的输出取自“{clean}”</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/positional.py" line="164"/>
        <source>Patches (2-D)</source>
        <translation>图块（二维）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="189"/>
        <location filename="../../attnviz/gui/panels/patching.py" line="395"/>
        <source>Patching</source>
        <translation>修补</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/patch.py" line="132"/>
        <source>patching every head over {count:,} pairs</source>
        <translation>在 {count:,} 对上修补每个头</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/patching.py" line="202"/>
        <source>Patching heads into the decoding…</source>
        <translation>正在把头修补进解码…</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/patching.py" line="90"/>
        <source>Patching heads…</source>
        <translation>正在修补头…</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/patching.py" line="202"/>
        <source>Patching no head…</source>
        <translation>正在取消所有修补…</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/engine.py" line="171"/>
        <location filename="../../attnviz/core/patching/engine.py" line="291"/>
        <source>patching reads each head's attention weights and values: this model's attention does not give them</source>
        <translation>修补要读取每个头的注意力权重和值：这个模型的注意力不提供它们</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="322"/>
        <source>Patching reads minimal pairs of sentences through each head's output: this model's heads cannot be patched</source>
        <translation>修补通过每个头的输出读取句子的最小对：这个模型的头无法修补</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/inputs.py" line="236"/>
        <source>patching reads minimal pairs of sentences: this model reads no sentence</source>
        <translation>修补读取句子的最小对：这个模型不读句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="40"/>
        <source>pattern: its attention weights alone</source>
        <translation>pattern：仅其注意力权重</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="148"/>
        <location filename="../../attnviz/gui/panels/train.py" line="452"/>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="418"/>
        <source>Paused: Resume goes on from here; Stop opens the model as it is.</source>
        <translation>已暂停：“继续”从此处接着训练；“停止”按当前状态打开模型。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="39"/>
        <source>PDF document (*.pdf)</source>
        <translation>PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panel_links.py" line="104"/>
        <source>PDF, a page per snapshot, with an animated GIF beside it (*.pdf)</source>
        <translation>PDF，每个快照一页，另附一个 GIF 动画 (*.pdf)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="458"/>
        <source>PDF, a page per step, with an animated GIF beside it (*.pdf)</source>
        <translation>PDF，每步一页，旁边另存一个 GIF 动画 (*.pdf)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="305"/>
        <source>PE · PEᵀ: nearby positions have similar encodings</source>
        <translation>PE · PEᵀ：相近位置的编码彼此相似</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="115"/>
        <source>PE · PEᵀ: similarity of positions</source>
        <translation>PE · PEᵀ：位置之间的相似度</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="85"/>
        <source>PE: {positions} positions × {width} dims</source>
        <translation>位置编码：{positions} 个位置 × {width} 维</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="55"/>
        <source>peak learning rate (default: {rates}; kernel-regression {kernel_rate:g})</source>
        <translation>峰值学习率（默认：{rates}；核回归为 {kernel_rate:g}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/positional.py" line="129"/>
        <source>Per layer: {runs}.</source>
        <translation>逐层：{runs}。</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/figure_files.py" line="46"/>
        <location filename="../../attnviz/render/figure_files.py" line="47"/>
        <source>permission denied</source>
        <translation>权限不足</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/offscreen.py" line="77"/>
        <source>pictures (png, svg, pdf) are drawn with Qt, which cannot start on this machine: {reason}; {alternative}</source>
        <translation>图片（png、svg、pdf）由 Qt 绘制，而 Qt 无法在本机启动：{reason}；{alternative}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="206"/>
        <source>PNG &amp;scale</source>
        <translation>PNG 缩放(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="66"/>
        <source>PNG (and flip-book GIF) scale factor (default 2)</source>
        <translation>PNG（及翻页动画 GIF）的缩放倍数（默认 2）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="475"/>
        <source>PNG exports and copies are now drawn at {scale:g}× the figure's base size</source>
        <translation>PNG 导出和复制现在按图基本尺寸的 {scale:g}× 绘制</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="39"/>
        <source>PNG image (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="84"/>
        <source>PNG scale</source>
        <translation>PNG 缩放</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="76"/>
        <location filename="../../attnviz/commands/figures.py" line="35"/>
        <location filename="../../attnviz/commands/heads.py" line="75"/>
        <source>PNG scale factor (default 2)</source>
        <translation>PNG 缩放倍数（默认 2）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/classify.py" line="23"/>
        <source>PNG, JPEG, WebP, BMP or GIF files (default: their paths on stdin, one a line)</source>
        <translation>PNG、JPEG、WebP、BMP 或 GIF 文件（默认：从标准输入读取其路径，每行一个）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="55"/>
        <source>Point at a head to read its share; click it for its maps; Ctrl+click (or right-click) patches it into the decoding on show</source>
        <translation>指向一个头可读出它的份额；单击它查看它的注意力图；Ctrl+单击（或右键）把它修补进当前显示的解码</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="54"/>
        <source>Point at a head to read its statistics here; click it to open its map</source>
        <translation>指向一个头即可在此读出它的统计量；单击可打开它的注意力图</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/results.py" line="114"/>
        <location filename="../../attnviz/figures/panels.py" line="87"/>
        <location filename="../../attnviz/figures/panels.py" line="116"/>
        <source>position</source>
        <translation>位置</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="198"/>
        <source>Position embedding similarity: each patch's learned position against every patch's (cosine)</source>
        <translation>位置嵌入的相似度：每个图块学到的位置与所有图块的位置（余弦）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/heatmap_readout.py" line="15"/>
        <source>position {row:,} → {col:,}</source>
        <translation>位置 {row:,} → {col:,}</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="12"/>
        <source>positional arguments</source>
        <translation>位置参数</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/docks.py" line="126"/>
        <source>Positional encoding</source>
        <translation>位置编码</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="542"/>
        <source>Positional encoding of the shipped Transformer: {positions} positions × {dimensions} dimensions</source>
        <translation>内置 Transformer 的位置编码：{positions} 个位置 × {dimensions} 维</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="660"/>
        <source>Positional encoding of the trained Transformer</source>
        <translation>训练好的 Transformer 的位置编码</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="655"/>
        <source>Positional encoding table</source>
        <translation>位置编码表</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="656"/>
        <source>Positional encoding: dimensions 6–9</source>
        <translation>位置编码：第 6–9 维</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="292"/>
        <source>Positional encoding: dimensions 6–9 over positions</source>
        <translation>位置编码：第 6–9 维随位置的变化</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="283"/>
        <source>Positional encoding: {positions} positions × {dimensions} dimensions</source>
        <translation>位置编码：{positions} 个位置 × {dimensions} 维</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="409"/>
        <location filename="../../attnviz/core/layout.py" line="533"/>
        <source>positions</source>
        <translation>位置</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/attention.py" line="77"/>
        <source>Pre-softmax scores</source>
        <translation>softmax 前的评分</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/attention.py" line="102"/>
        <source>pre-softmax scores</source>
        <translation>softmax 前的评分</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="71"/>
        <source>pre-softmax scores instead of weights</source>
        <translation>导出 softmax 之前的评分而非权重</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="143"/>
        <location filename="../../attnviz/gallery.py" line="174"/>
        <source>prediction</source>
        <translation>预测</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/kernel.py" line="61"/>
        <source>Predictions (drag the red line to move the query)</source>
        <translation>预测（拖动红线可移动查询）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="186"/>
        <location filename="../../attnviz/gui/decoding_area.py" line="25"/>
        <source>Press Step (F10) to decode the first word</source>
        <translation>按“单步”（F10）解码第一个词</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="538"/>
        <source>Press Step (F10) to fill the first mask</source>
        <translation>按“单步”（F10）填第一个掩蔽</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="105"/>
        <source>Previous h&amp;ead</source>
        <translation>上一个头(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="107"/>
        <source>Previous lay&amp;er</source>
        <translation>上一层(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/eval.py" line="21"/>
        <source>print the BLEU of a checkpoint on a TSV of pairs</source>
        <translation>输出检查点在 TSV 句对上的 BLEU</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/demo.py" line="14"/>
        <source>print what the attention core computes, as text</source>
        <translation>以文本输出注意力核心的计算结果</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="296"/>
        <source>probability</source>
        <translation>概率</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="160"/>
        <source>Probe</source>
        <translation>探针输入</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="236"/>
        <source>probe image {seed} ({answer})</source>
        <translation>探针图像 {seed}（{answer}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/distributed.py" line="356"/>
        <source>process {ranks} of {world}</source>
        <translation>{world} 个进程中的进程 {ranks}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/distributed.py" line="325"/>
        <source>process {rank} of {world} (pid {pid}) died: killed, or out of memory</source>
        <translation>{world} 个进程中的进程 {rank}（pid {pid}）已终止：被杀死，或内存不足</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/distributed.py" line="332"/>
        <source>process {rank} of {world} gave no sign of life for {seconds:.0f} s (stopped, or its machine lost)</source>
        <translation>{world} 个进程中的进程 {rank} 已 {seconds:.0f} 秒没有任何响应（被暂停，或其机器失联）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/distributed.py" line="321"/>
        <source>process {rank} of {world} stopped: {why}</source>
        <translation>{world} 个进程中的进程 {rank} 已停止：{why}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="407"/>
        <source>prompt layers 1–{n}</source>
        <translation>提示词第 1–{n} 层</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="512"/>
        <source>prompt tokens</source>
        <translation>提示词的词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="410"/>
        <source>Prompt | answer causal mask</source>
        <translation>提示词 | 回答的因果掩蔽</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="409"/>
        <source>Prompt | answer causal mask, step {step}</source>
        <translation>提示词 | 回答的因果掩蔽，第 {step} 步</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="108"/>
        <location filename="../../attnviz/gui/panels/heads.py" line="146"/>
        <source>Pruning curve</source>
        <translation>剪枝曲线</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="231"/>
        <source>pruning curve</source>
        <translation>剪枝曲线</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/analysis.py" line="130"/>
        <source>Pruning heads…</source>
        <translation>正在剪枝…</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/images.py" line="26"/>
        <source>Pullover</source>
        <translation>套头衫</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/attention/layers.py" line="147"/>
        <source>q = s_{t−1}, the decoder's hidden state before this step</source>
        <translation>q = s_{t−1}，即解码器在这一步之前的隐状态</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/chains.py" line="207"/>
        <source>q = W_q a + b_q  (GPT-2's c_attn, query part)</source>
        <translation>q = W_q a + b_q （GPT-2 的 c_attn 的查询部分）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="692"/>
        <source>QK-norm (Qwen3, Gemma 3, OLMo 2): queries and keys normalised before RoPE keep scores bounded and training stable</source>
        <translation>QK 归一化（Qwen3、Gemma 3、OLMo 2）：在 RoPE 之前对查询和键做归一化，使评分有界、训练稳定</translation>
    </message>
    <message>
        <location filename="../../attnviz/modern_gallery.py" line="135"/>
        <source>QK-norm: every query (and key) rescaled to one length before RoPE, so no score can grow without bound</source>
        <translation>QK 归一化：每个查询（和键）在 RoPE 之前缩放到同一长度，评分因此不会无限增长</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="177"/>
        <location filename="../../attnviz/figures/spec.py" line="29"/>
        <location filename="../../attnviz/gallery.py" line="492"/>
        <source>queries</source>
        <translation>查询</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="637"/>
        <source>queries ([CLS] and the patches)</source>
        <translation>查询（[CLS] 和图像块）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="171"/>
        <source>queries (encoder output)</source>
        <translation>查询（编码器输出）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="529"/>
        <source>queries (positions)</source>
        <translation>查询（位置）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="407"/>
        <source>queries (prompt positions)</source>
        <translation>查询（提示词位置）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="136"/>
        <source>queries at positions {positions}</source>
        <translation>位置在 {positions} 的查询</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="47"/>
        <source>queries x</source>
        <translation>查询 x</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="115"/>
        <source>Queries, Keys, and Values</source>
        <translation>查询、键和值</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="263"/>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/attention.py" line="359"/>
        <source>query &lt;b&gt;{query}&lt;/b&gt; → key &lt;b&gt;{key}&lt;/b&gt;: weight {weight:.4f} (masked)</source>
        <translation>查询 &lt;b&gt;{query}&lt;/b&gt; → 键 &lt;b&gt;{key}&lt;/b&gt;：权重 {weight:.4f}（已掩蔽）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/attention.py" line="362"/>
        <source>query &lt;b&gt;{query}&lt;/b&gt; → key &lt;b&gt;{key}&lt;/b&gt;: weight {weight:.4f}, score {score:.3f}</source>
        <translation>查询 &lt;b&gt;{query}&lt;/b&gt; → 键 &lt;b&gt;{key}&lt;/b&gt;：权重 {weight:.4f}，评分 {score:.3f}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/attention.py" line="347"/>
        <location filename="../../attnviz/gui/panels/attention.py" line="355"/>
        <source>query &lt;b&gt;{query}&lt;/b&gt; → key &lt;b&gt;{key}&lt;/b&gt;: {name} {value:.4f}{masked}</source>
        <translation>查询 &lt;b&gt;{query}&lt;/b&gt; → 键 &lt;b&gt;{key}&lt;/b&gt;：{name} {value:.4f}{masked}</translation>
    </message>
    <message>
        <location filename="../../attnviz/modern_gallery.py" line="106"/>
        <source>query head {head} · key/value head {group}</source>
        <translation>第 {head} 个查询头 · 第 {group} 个键/值头</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/kernel.py" line="237"/>
        <source>Query x = {query:.2f}: non-parametric ŷ = {nonparametric:.3f}, parametric ŷ = {parametric:.3f}. Learned w = {w:.3f} (bandwidth 1/|w| = {bandwidth:.3f}). Test MSE: non-parametric {mse_np:.3f}, parametric {mse_p:.3f}.</source>
        <translation>查询 x = {query:.2f}：非参数 ŷ = {nonparametric:.3f}，带参数 ŷ = {parametric:.3f}。学到的 w = {w:.3f}（带宽 1/|w| = {bandwidth:.3f}）。测试 MSE：非参数 {mse_np:.3f}，带参数 {mse_p:.3f}。</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="150"/>
        <source>query x = {x:.2f}</source>
        <translation>查询 x = {x:.2f}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="209"/>
        <location filename="../../attnviz/gallery.py" line="209"/>
        <location filename="../../attnviz/gui/panels/computation.py" line="41"/>
        <source>query {n}</source>
        <translation>第 {n} 个查询</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="179"/>
        <source>Query “{query}” at step {step}. {note}</source>
        <translation>第 {step} 步的查询“{query}”。{note}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="412"/>
        <source>Query “{query}” at step {step}. {note} Its keys are the English and the answer so far: a decoder-only model has one self-attention.</source>
        <translation>第 {step} 步的查询“{query}”。{note}它的键是英语句子及目前为止的回答：仅解码器模型只有一种自注意力。</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="171"/>
        <location filename="../../attnviz/gui/panels/heads.py" line="164"/>
        <source>query's position</source>
        <translation>查询的位置</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="450"/>
        <source>Query: {query}. Click a patch to show its attention; {cls} for the class's.</source>
        <translation>查询：{query}。点击一个图块可显示它的注意力；点击 {cls} 显示类别所读的注意力。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="153"/>
        <source>query_tokens must start with {first} (as DecodeStep.query_tokens does), got {tokens}</source>
        <translation>query_tokens 必须以 {first} 开头（与 DecodeStep.query_tokens 一样），实际为 {tokens}</translation>
    </message>
    <message>
        <location filename="../../attnviz/app.py" line="174"/>
        <source>quitting while a background job still runs</source>
        <translation>退出时仍有后台任务在运行</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/positional.py" line="87"/>
        <source>q·k of two all-ones vectors m apart (1 at m = 0)</source>
        <translation>相距 m 的两个全 1 向量的 q·k（m = 0 时为 1）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="130"/>
        <source>random order</source>
        <translation>随机顺序</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="54"/>
        <source>random order (mean of {seeds})</source>
        <translation>随机顺序（{seeds} 次的平均）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="69"/>
        <source>random pruning orders averaged (default {seeds})</source>
        <translation>取平均的随机剪枝顺序个数（默认 {seeds}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="166"/>
        <source>ranked by score = log p / T&lt;sup&gt;{penalty:g}&lt;/sup&gt; (length-normalised; T: its tokens)</source>
        <translation>按评分 = log p / T&lt;sup&gt;{penalty:g}&lt;/sup&gt; 排序（长度归一化；T：其词元数）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="34"/>
        <source>raw</source>
        <translation>原始注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="20"/>
        <source>raw attention</source>
        <translation>原始注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="94"/>
        <source>raw importance E|∂L/∂ξ_h| (Michel et al. 2019): the mean over (source, target) pairs of the gradient of the pair's mean token cross-entropy with respect to the head's gate; `n/a` with `--documents` (not measured)</source>
        <translation>原始重要性 E|∂L/∂ξ_h|（Michel 等 2019）：对（源，目标）句对取平均，每对的平均词元交叉熵对该头门控的梯度；使用 `--documents` 时为 `n/a`（不计算）</translation>
    </message>
    <message>
        <location filename="../../attnviz/modern_gallery.py" line="151"/>
        <source>raw score q·k / √d</source>
        <translation>原始评分 q·k / √d</translation>
    </message>
    <message>
        <location filename="../../attnviz/unopenable.py" line="21"/>
        <source>reading a device can block or never end</source>
        <translation>读取设备可能阻塞或永不结束</translation>
    </message>
    <message>
        <location filename="../../attnviz/unopenable.py" line="20"/>
        <source>reading a pipe can wait forever for a writer</source>
        <translation>读取管道可能永远等待写入方</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="313"/>
        <source>reading the documents</source>
        <translation>正在读取文档</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/compare.py" line="159"/>
        <source>Reading the image with the second model…</source>
        <translation>正在用第二个模型读取图像…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/hf_dialog.py" line="126"/>
        <source>Reading the models in the cache…</source>
        <translation>正在读取缓存中的模型…</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/patching.py" line="153"/>
        <source>Reading the pair's maps…</source>
        <translation>正在读取这一对的注意力图…</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="315"/>
        <location filename="../../attnviz/commands/heads.py" line="173"/>
        <source>reading the sentences</source>
        <translation>正在读取句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain_images.py" line="88"/>
        <source>reading {count:,} images</source>
        <translation>正在读取 {count:,} 张图像</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/images.py" line="87"/>
        <source>Reading {image}…</source>
        <translation>正在读取 {image}…</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="286"/>
        <source>reading {tokens:,} tokens</source>
        <translation>正在读取 {tokens:,} 个词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/long_prompt.py" line="147"/>
        <source>reading {tokens:,} tokens while keeping their queries and keys would take {gb:.1f} GB at its peak (attnviz allows {most:.0f} GB): give a shorter prompt</source>
        <translation>读取 {tokens:,} 个词元并保留其查询和键，峰值将占用 {gb:.1f} GB（attnviz 最多允许 {most:.0f} GB）：请给出更短的提示</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/compat.py" line="45"/>
        <source>recording attention</source>
        <translation>记录注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="359"/>
        <source>recurrent: n·d²</source>
        <translation>循环神经网络：n·d²</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="114"/>
        <source>references</source>
        <translation>参考译文</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/positional.py" line="143"/>
        <source>relative bias</source>
        <translation>相对偏置</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="100"/>
        <source>Relative position bias: {width} heads × distances {first}…{last}</source>
        <translation>相对位置偏置：{width} 个头 × 距离 {first}…{last}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/figures.py" line="25"/>
        <source>render the book's attention figures (d2l.ai, the Transformer paper)</source>
        <translation>渲染书中的注意力图表（d2l.ai、Transformer 论文）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="762"/>
        <source>Rendered by &lt;code&gt;attnviz figures&lt;/code&gt; from attnviz's own code: the attention chapter of &lt;i&gt;Dive into Deep Learning&lt;/i&gt; and “Attention Is All You Need”. Sections are numbered as in {edition}; the number in {other} stands beside each (&lt;code&gt;attnviz figures --edition {other_key}&lt;/code&gt; numbers them that way).</source>
        <translation>由 &lt;code&gt;attnviz figures&lt;/code&gt; 用 attnviz 自己的代码绘制：&lt;i&gt;《动手学深度学习》&lt;/i&gt;的注意力机制一章与“Attention Is All You Need”。节号按 {edition} 编排；{other} 中的节号列在每节旁边（&lt;code&gt;attnviz figures --edition {other_key}&lt;/code&gt; 按该版本编号）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="354"/>
        <source>Replace</source>
        <translation>替换</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="39"/>
        <source>replace an attnviz checkpoint at --out (default: refuse)</source>
        <translation>替换 --out 处的 attnviz 检查点（默认：拒绝）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="79"/>
        <location filename="../../attnviz/commands/export.py" line="70"/>
        <location filename="../../attnviz/commands/figures.py" line="37"/>
        <source>replace files of the same names in --out</source>
        <translation>替换 --out 中的同名文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="351"/>
        <source>Replace files?</source>
        <translation>替换文件？</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="277"/>
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/language.py" line="109"/>
        <source>Restart now</source>
        <translation>立即重启</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="452"/>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/train.py" line="157"/>
        <location filename="../../attnviz/training/vision.py" line="176"/>
        <source>resuming epoch {epoch} at batch {batch} (step {step:,}) from {path}</source>
        <translation>从 {path} 继续第 {epoch} 个迭代周期，自第 {batch} 批（第 {step:,} 步）起</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/tasks.py" line="165"/>
        <source>reverse the digits</source>
        <translation>反转数字</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/tasks.py" line="166"/>
        <source>reverse — the anti-diagonal</source>
        <translation>反转 — 反对角线</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/tasks.py" line="169"/>
        <source>rewrite a date as year month day</source>
        <translation>把日期改写为年 月 日</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/image_tasks.py" line="29"/>
        <source>ring</source>
        <translation>圆环</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="550"/>
        <source>RNN + additive attention</source>
        <translation>RNN + 加性注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="550"/>
        <source>RNN + dot-product attention</source>
        <translation>RNN + 点积注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/docks.py" line="137"/>
        <source>Rollout</source>
        <translation>注意力展开</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="511"/>
        <location filename="../../attnviz/gui/panels/explain.py" line="34"/>
        <source>rollout</source>
        <translation>注意力展开</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="29"/>
        <source>rollout (+ 0.5·I for the residual)</source>
        <translation>注意力展开（加 0.5·I 代表残差）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="30"/>
        <source>rollout (no residual)</source>
        <translation>注意力展开（不加残差）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="503"/>
        <source>rollout after layer {layer}</source>
        <translation>第 {layer} 层后的注意力展开</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="615"/>
        <source>Rollout at the mask (position {row}), {layers}: what the prediction reads from each token</source>
        <translation>掩蔽处（位置 {row}）的展开，{layers}：预测从每个词元读取多少</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/rollout.py" line="26"/>
        <source>Rollout needs a Transformer: this RNN model has no encoder self-attention</source>
        <translation>注意力展开需要 Transformer：此 RNN 模型没有编码器自注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/rollout.py" line="27"/>
        <source>Rollout needs encoder layers: this model has none</source>
        <translation>注意力展开需要编码器层：此模型没有</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="90"/>
        <source>RoPE angles: sin, cos of m·θ_i, {positions} positions × {width} dims</source>
        <translation>RoPE 角度：m·θ_i 的 sin、cos，{positions} 个位置 × {width} 维</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/variants.py" line="86"/>
        <source>RoPE base {base:,.0f}</source>
        <translation>RoPE 基数 {base:,.0f}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/variants.py" line="87"/>
        <source>RoPE base {base:,.0f}, {scaling} scaling</source>
        <translation>RoPE 基数 {base:,.0f}，{scaling} 缩放</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/chains.py" line="284"/>
        <source>RoPE_m({projection}), m = {row}: rotated by its position (base {base:,.0f})</source>
        <translation>RoPE_m({projection})，m = {row}：按其位置旋转（基数 {base:,.0f}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/positional.py" line="91"/>
        <source>rotary (RoPE)</source>
        <translation>旋转（RoPE）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="292"/>
        <source>row (position)</source>
        <translation>行（位置）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="142"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="32"/>
        <source>run as a job of N processes on this machine (on the CPU: at most one per core; on CUDA: one per GPU), each taking its share of the corpus; a process that fails stops the job in one line</source>
        <translation>在本机以 N 个进程的作业运行（CPU 上每个核心最多一个；CUDA 上每块 GPU 一个），每个进程处理语料的一部分；任一进程失败即以一行说明停止作业</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="155"/>
        <source>Run patching over minimal pairs: which heads carry the difference</source>
        <translation>在最小对上运行修补：哪些头承载了这个差别</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="79"/>
        <source>Run to &amp;end</source>
        <translation>运行到结束(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="276"/>
        <source>Run to end</source>
        <translation>运行到结束</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="190"/>
        <source>S&amp;maller text</source>
        <translation>缩小文字(&amp;M)</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/chains.py" line="317"/>
        <source>s_j = q·k_j + b(j − {row}): T5's learned bias for each relative distance, no 1/√d</source>
        <translation>s_j = q·k_j + b(j − {row})：T5 为每个相对距离学习的偏置，不除以 √d</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="255"/>
        <source>Samples…</source>
        <translation>示例…</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/images.py" line="27"/>
        <source>Sandal</source>
        <translation>凉鞋</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="226"/>
        <source>Save model…</source>
        <translation>保存模型…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/file_opening.py" line="157"/>
        <source>Save session</source>
        <translation>保存会话</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="70"/>
        <source>Save the model, sentence, steps, forced tokens and view as a small file that brings this view back (Ctrl+S)</source>
        <translation>把模型、句子、各步、强制的词元和视图保存为一个小文件，用它可恢复此视图（Ctrl+S）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="671"/>
        <source>Save the trained model</source>
        <translation>保存训练好的模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/file_opening.py" line="95"/>
        <source>Saved the session to {path}</source>
        <translation>会话已保存到 {path}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="690"/>
        <source>Saved the trained model, with its training history, as {target}.</source>
        <translation>已将训练好的模型连同其训练历史保存为 {target}。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/file_opening.py" line="98"/>
        <source>Saving {name}…</source>
        <translation>正在保存 {name}…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="646"/>
        <source>Scaled dot-product attention on the toy example</source>
        <translation>小例子上的缩放点积注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="274"/>
        <source>Scaled dot-product attention on the toy: weights 1/2 and 1/6</source>
        <translation>小例子上的缩放点积注意力：权重为 1/2 和 1/6</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="297"/>
        <location filename="../../attnviz/core/models/kinds.py" line="304"/>
        <source>scaled dot-product scoring per head, both directions: a(q, k) = (W_q q)ᵀ(W_k k) / √d_head</source>
        <translation>每个头的缩放点积评分，双向：a(q, k) = (W_q q)ᵀ(W_k k) / √d_head</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="267"/>
        <location filename="../../attnviz/core/models/kinds.py" line="291"/>
        <source>scaled dot-product scoring per head, causal: a(q, k) = (W_q q)ᵀ(W_k k) / √d_head</source>
        <translation>每个头的缩放点积评分，因果掩蔽：a(q, k) = (W_q q)ᵀ(W_k k) / √d_head</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="311"/>
        <source>scaled dot-product scoring per head, over [CLS] and the patches: a(q, k) = (W_q q)ᵀ(W_k k) / √d_head</source>
        <translation>每个头的缩放点积评分，作用于 [CLS] 和各图像块：a(q, k) = (W_q q)ᵀ(W_k k) / √d_head</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="323"/>
        <source>scaled dot-product scoring per head, over the special tokens and the patches: a(q, k) = (W_q q)ᵀ(W_k k) / √d_head</source>
        <translation>每个头的缩放点积评分，作用于特殊词元和图块：a(q, k) = (W_q q)ᵀ(W_k k) / √d_head</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="259"/>
        <location filename="../../attnviz/core/models/kinds.py" line="285"/>
        <source>scaled dot-product scoring per head: a(q, k) = (W_q q)ᵀ(W_k k) / √d_head</source>
        <translation>每个头的缩放点积评分：a(q, k) = (W_q q)ᵀ(W_k k) / √d_head</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="279"/>
        <source>scaled dot-product scoring: a(q, k) = qᵀk / √d</source>
        <translation>缩放点积评分：a(q, k) = qᵀk / √d</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/attention.py" line="348"/>
        <location filename="../../attnviz/gui/panels/scoring.py" line="66"/>
        <source>score</source>
        <translation>评分</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/eval.py" line="25"/>
        <source>score only the validation split that training held out of --data (rebuilt from the options stored in the checkpoint)</source>
        <translation>只在训练时从 --data 留出的验证集上评分（按检查点中保存的选项重建）</translation>
    </message>
    <message>
        <location filename="../../attnviz/modern_gallery.py" line="151"/>
        <source>score the softmax reads</source>
        <translation>softmax 读到的评分</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/head_grid.py" line="43"/>
        <source>score {value:.4f}</source>
        <translation>评分 {value:.4f}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/scoring.py" line="66"/>
        <source>Scores before softmax</source>
        <translation>softmax 之前的评分</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/docks.py" line="128"/>
        <source>Scoring</source>
        <translation>评分函数</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="217"/>
        <source>Scrub back through the snapshots of the training</source>
        <translation>拖动以回看训练过程中的快照</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="291"/>
        <source>Scrub through the recorded decoding steps (orange marks: forced tokens)</source>
        <translation>拖动浏览已记录的解码步骤（橙色标记：强制的词元）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="136"/>
        <source>Seconds between two steps of auto-play</source>
        <translation>自动播放时两步之间的秒数</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/book_dialog.py" line="93"/>
        <source>Section numbers of</source>
        <translation>节号依照</translation>
    </message>
    <message>
        <location filename="../../attnviz/cli.py" line="30"/>
        <source>See attention.</source>
        <translation>看见注意力。</translation>
    </message>
    <message>
        <location filename="../../attnviz/app.py" line="40"/>
        <source>See attention. Without a command, opens the desktop app.</source>
        <translation>看见注意力。不带命令时打开桌面应用。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="262"/>
        <source>See attention: step a decoder and watch its attention.</source>
        <translation>看见注意力：单步运行解码器，观察它的注意力。</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="45"/>
        <source>seed of the validation split, the batches and the initial weights (default {seed})</source>
        <translation>验证集划分、批次和初始权重的随机种子（默认 {seed}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="561"/>
        <location filename="../../attnviz/core/layout.py" line="527"/>
        <location filename="../../attnviz/core/layout.py" line="635"/>
        <source>self-attention</source>
        <translation>自注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="416"/>
        <source>self-attention (prompt + answer)</source>
        <translation>自注意力（提示词 + 回答）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="415"/>
        <source>self-attention (prompt)</source>
        <translation>自注意力（提示词）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="123"/>
        <location filename="../../attnviz/figures/editions.py" line="124"/>
        <source>Self-Attention and Positional Encoding</source>
        <translation>自注意力和位置编码</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="358"/>
        <source>self-attention: n²·d</source>
        <translation>自注意力：n²·d</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="45"/>
        <source>sentence</source>
        <translation>句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/batch.py" line="40"/>
        <source>sentence </source>
        <translation>句子 </translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="59"/>
        <source>sentence pairs per step (default {size})</source>
        <translation>每步的句对数（默认 {size}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/app.py" line="43"/>
        <source>sentence to decode on start</source>
        <translation>启动时解码的句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="348"/>
        <source>sentences</source>
        <translation>句</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/batch.py" line="55"/>
        <source>Sentences (one per line)</source>
        <translation>句子（每行一个）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="362"/>
        <source>sequence length n</source>
        <translation>序列长度 n</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="213"/>
        <location filename="../../attnviz/gallery.py" line="213"/>
        <source>sequence {n}</source>
        <translation>序列 {n}</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="236"/>
        <source>session version {version!r} is newer than this attnviz understands ({newest})</source>
        <translation>会话版本 {version!r} 比此 attnviz 能理解的版本（{newest}）更新</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="239"/>
        <source>session version {version} does not exist (versions start at 1; this attnviz writes {newest})</source>
        <translation>会话版本 {version} 不存在（版本从 1 开始；此 attnviz 写入版本 {newest}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/settings.py" line="79"/>
        <source>setting {key} = {value!r} is not usable; using {default!r}</source>
        <translation>设置 {key} = {value!r} 无法使用；改用 {default!r}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/settings.py" line="112"/>
        <source>setting {key} is not a list; ignored</source>
        <translation>设置 {key} 不是列表；已忽略</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/settings.py" line="227"/>
        <source>setting {key} is not a saved window layout; using the default layout</source>
        <translation>设置 {key} 不是保存的窗口布局；改用默认布局</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/settings.py" line="252"/>
        <source>Settings cannot be saved to {path} (the folder is not writable); they last until you quit.</source>
        <translation>无法把设置保存到 {path}（文件夹不可写）；这些设置只保留到退出为止。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="308"/>
        <source>SGD steps on w (the book trains 5)</source>
        <translation>对 w 的 SGD 步数（书中训练 5 步）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/image_tasks.py" line="172"/>
        <source>shapes — [CLS] on the bright shape</source>
        <translation>形状 — [CLS] 落在明亮的形状上</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/patching.py" line="16"/>
        <source>share lost, head from the corrupt run into the clean one</source>
        <translation>失去的份额，头从损坏运行放入干净运行</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="244"/>
        <source>share of a patch's attention on [CLS]</source>
        <translation>图像块的注意力落在 [CLS] 上的占比</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="19"/>
        <source>share of rows whose argmax is a least frequent source token</source>
        <translation>最大值落在频率最低源词元上的行所占比例</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="83"/>
        <source>share of rows whose largest weight falls on a least frequent source token of the sentence (Voita et al. 2019's rare-word heads); frequency counted over the distinct source sentences of `--data` as the model splits them, every token tied for least frequent counting; `n/a` for dec-self, whose keys are not the source</source>
        <translation>最大权重落在句中频率最低的源词元上的行所占比例（Voita 等 2019 的罕见词头）；频率按模型切分后在 `--data` 的不重复源句上统计，并列最低的词元都算；dec-self 的键不是源句，为 `n/a`</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="117"/>
        <source>share of the weight on the first position, by the query's position</source>
        <translation>第一个位置上的权重份额，按查询位置分组</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="118"/>
        <source>share of ‖α f(x)‖ on the first position, by the query's position (Kobayashi et al.)</source>
        <translation>第一个位置上 ‖α f(x)‖ 的份额，按查询位置分组（Kobayashi 等）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="23"/>
        <source>share on sinks (first token, end, punctuation)</source>
        <translation>汇聚点上的权重占比（首个词元、句末、标点）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="171"/>
        <location filename="../../attnviz/gui/panels/heads.py" line="165"/>
        <source>share on the first position</source>
        <translation>第一个位置上的份额</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="22"/>
        <source>share on the next position</source>
        <translation>后一位置上的权重占比</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="245"/>
        <source>share on the other special positions (distillation token, registers)</source>
        <translation>落在其他特殊位置（蒸馏词元、寄存器）上的占比</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="20"/>
        <source>share on the previous position</source>
        <translation>前一位置上的权重占比</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="21"/>
        <source>share on the same position</source>
        <translation>同一位置上的权重占比</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/patching.py" line="57"/>
        <source>share restored by patching</source>
        <translation>修补恢复的份额</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/patching.py" line="17"/>
        <source>share restored by the head's attention weights alone (own values)</source>
        <translation>仅由该头的注意力权重恢复的份额（值是它自己的）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/patching.py" line="18"/>
        <source>share restored by the head's values alone (own attention weights)</source>
        <translation>仅由该头的值恢复的份额（注意力权重是它自己的）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/patching.py" line="15"/>
        <source>share restored, head from the clean run into the corrupt one</source>
        <translation>恢复的份额，头从干净运行放入损坏运行</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="24"/>
        <source>Shift+F10 or Alt+←; ← outside the text field</source>
        <translation>Shift+F10 或 Alt+←；在文本框外按 ←</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="92"/>
        <source>Shipped &amp;models</source>
        <translation>内置模型(&amp;M)</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/images.py" line="27"/>
        <source>Shirt</source>
        <translation>衬衫</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="293"/>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/titled_plot.py" line="258"/>
        <source>Show all data</source>
        <translation>显示全部数据</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/book_dialog.py" line="79"/>
        <source>Show live in the window</source>
        <translation>在窗口中实时显示</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/attention.py" line="78"/>
        <source>Show masked cells</source>
        <translation>显示掩蔽单元格</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="289"/>
        <source>Show the attention of [CLS], the query the class is read from (click a patch to show that patch's)</source>
        <translation>显示 [CLS] 的注意力，类别由这个查询读出（点击一个图块可显示该图块的）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/computation.py" line="46"/>
        <source>Show the newest query of the step on show (the row the decoder just computed)</source>
        <translation>显示当前这一步的最新查询（解码器刚计算出的那一行）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/heatmap.py" line="157"/>
        <source>Show the whole map</source>
        <translation>显示整张图</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="12"/>
        <source>show this help message and exit</source>
        <translation>显示此帮助信息并退出</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="177"/>
        <source>Sinks</source>
        <translation>汇聚</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="162"/>
        <source>Sinks by the query's position</source>
        <translation>按查询位置划分的注意力汇聚</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/positional.py" line="106"/>
        <source>sinusoidal</source>
        <translation>正弦</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="22"/>
        <source>Sinusoidal PE: {positions} positions × {width} dims</source>
        <translation>正弦位置编码：{positions} 个位置 × {width} 维</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="157"/>
        <source>Size</source>
        <translation>规模</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="71"/>
        <source>skip the pruning curve (the slow part)</source>
        <translation>跳过剪枝曲线（耗时的部分）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/positional.py" line="184"/>
        <source>Skipped {problems}</source>
        <translation>已跳过 {problems}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/variants.py" line="75"/>
        <source>sliding window {window}</source>
        <translation>滑动窗口 {window}</translation>
    </message>
    <message>
        <location filename="../../attnviz/modern_gallery.py" line="93"/>
        <source>sliding window {window}: the last {window} keys</source>
        <translation>滑动窗口 {window}：最近的 {window} 个键</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="49"/>
        <source>small</source>
        <translation>小型</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="592"/>
        <source>snapshot {index} of {count} · step {step:,}</source>
        <translation>快照 {index}/{count} · 第 {step:,} 步</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="271"/>
        <source>snapshot {number} of the training history</source>
        <translation>训练历史的第 {number} 个快照</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/images.py" line="28"/>
        <source>Sneaker</source>
        <translation>运动鞋</translation>
    </message>
    <message>
        <location filename="../../attnviz/modern_gallery.py" line="150"/>
        <source>Soft-capping: a score s becomes {cap:g}·tanh(s / {cap:g}), never beyond ±{cap:g}</source>
        <translation>软截顶：评分 s 变为 {cap:g}·tanh(s / {cap:g})，绝不超出 ±{cap:g}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="348"/>
        <source>softmax entropy, q·k</source>
        <translation>softmax 的熵，q·k</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="349"/>
        <source>softmax entropy, q·k / √d</source>
        <translation>softmax 的熵，q·k / √d</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/status_bar.py" line="136"/>
        <source>Some settings were unusable and reset: {problems}</source>
        <translation>部分设置无法使用，已重置：{problems}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/tasks.py" line="167"/>
        <source>sort the digits</source>
        <translation>排序数字</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/tasks.py" line="168"/>
        <source>sort — a permutation</source>
        <translation>排序 — 一个置换</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="389"/>
        <source>Source attribution at step {step}: decoder layer {layer} cross-attention (heads averaged) × encoder rollout, {layers}</source>
        <translation>第 {step} 步的源归因：解码器第 {layer} 层的编码器－解码器注意力（各头平均）× 编码器注意力展开，{layers}</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/rollout.py" line="76"/>
        <source>Source attribution: step the decoder to trace its output to source words</source>
        <translation>源归因：单步解码，把输出追溯到源语言的词</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="322"/>
        <source>Source sentence</source>
        <translation>源句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="392"/>
        <location filename="../../attnviz/figures/beam_tree.py" line="93"/>
        <location filename="../../attnviz/figures/explain.py" line="47"/>
        <source>source tokens</source>
        <translation>源词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/shared.py" line="111"/>
        <source>source tokens decoded at once, beams counted (default: 256 sentences a batch); halved where the device runs out of memory</source>
        <translation>一次解码的源词元数，按束计（默认：每批 256 个句子）；设备内存不足时减半</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="416"/>
        <source>source view</source>
        <translation>源视图</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="489"/>
        <source>source view (renormalised over the English)</source>
        <translation>源视图（在英语部分上重新归一化）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="408"/>
        <source>source view after layers 1–{n}</source>
        <translation>源视图（第 1–{n} 层之后）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="510"/>
        <source>Source view of the rollout at step {step}, {layers}: the share from each prompt token</source>
        <translation>第 {step} 步注意力展开的源视图，{layers}：来自提示词中每个词元的份额</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="435"/>
        <source>Source view: the answer's self-attention weights on the prompt, not renormalised: a row sums to the prompt's share (the rest is on the answer).</source>
        <translation>源视图（source view）：回答对提示词的自注意力权重，未重新归一化：每行之和为提示词所占的份额（其余在回答上）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="145"/>
        <source>source_valid_len must be from 1 to {count}, got {given}</source>
        <translation>source_valid_len 必须在 1 到 {count} 之间，实际为 {given}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="71"/>
        <source>Spearman ρ</source>
        <translation>斯皮尔曼 ρ</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="72"/>
        <source>Spearman ρ of every pair of methods</source>
        <translation>每对方法之间的斯皮尔曼 ρ</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="102"/>
        <source>Spearman ρ with {reference}, per layer</source>
        <translation>各层与{reference}的斯皮尔曼 ρ</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/file_dialogs.py" line="34"/>
        <source>Special file</source>
        <translation>特殊文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="273"/>
        <location filename="../../attnviz/gui/panels/heads.py" line="155"/>
        <source>spread evenly</source>
        <translation>均匀分布</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/image_tasks.py" line="29"/>
        <source>square</source>
        <translation>正方形</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="281"/>
        <location filename="../../attnviz/gui/menus.py" line="82"/>
        <source>Start the decoding again (Ctrl+R)</source>
        <translation>重新开始解码（Ctrl+R）</translation>
    </message>
    <message>
        <location filename="../../attnviz/app.py" line="162"/>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="227"/>
        <source>statistics and importance</source>
        <translation>统计与重要性</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="330"/>
        <source>statistics and sinks over {count:,} documents, batches of {tokens:,} tokens</source>
        <translation>在 {count:,} 篇文档上计算统计量和汇聚点，每批 {tokens:,} 个词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="54"/>
        <source>statistics, importance and pruning of every attention head over a corpus (also under torchrun)</source>
        <translation>在语料上统计每个注意力头、计算其重要性并剪枝（也可在 torchrun 下运行）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/shared.py" line="229"/>
        <source>stdin: line {line} is over {kib} KiB: one sentence a line</source>
        <translation>标准输入：第 {line} 行超过 {kib} KiB：每行一个句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="77"/>
        <location filename="../../attnviz/figures/training.py" line="90"/>
        <location filename="../../attnviz/figures/training.py" line="85"/>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="293"/>
        <source>step 888 · search 888</source>
        <translation>第 888 步 · 搜索第 888 步</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="127"/>
        <source>Step on by itself, from the first step to the end (Space)</source>
        <translation>从第一步到结束自动逐步解码（空格键）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/compare.py" line="45"/>
        <source>Step the decoder to compare the models' attention</source>
        <translation>单步解码以比较两个模型的注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/beams.py" line="154"/>
        <source>Step the decoder to grow the beam tree</source>
        <translation>单步解码以展开束搜索树</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/scoring.py" line="122"/>
        <source>Step the decoder to see the scores of its current query.</source>
        <translation>单步解码以查看当前查询的评分。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="74"/>
        <location filename="../../attnviz/gui/panels/explain.py" line="124"/>
        <source>Step the decoder: each method says which source words the new word came from</source>
        <translation>单步解码：每种方法都会指出新词元来自哪些源词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/computation.py" line="191"/>
        <source>Step the decoder: its queries appear one per step.</source>
        <translation>单步解码：每一步出现一个查询。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/status_bar.py" line="82"/>
        <location filename="../../attnviz/gui/status_bar.py" line="91"/>
        <source>step {ms:.1f} ms</source>
        <translation>本步 {ms:.1f} ms</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_controls.py" line="34"/>
        <source>step {number}</source>
        <translation>第 {number} 步</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_controls.py" line="35"/>
        <source>step {number} · search {search}</source>
        <translation>第 {number} 步 · 搜索第 {search} 步</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="259"/>
        <source>step {number}: 'forced' must be one token (no spaces) or null</source>
        <translation>第 {number} 步：'forced' 必须是一个词元（不含空格）或 null</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="204"/>
        <source>step {n}</source>
        <translation>第 {n} 步</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="20"/>
        <location filename="../../attnviz/gui/panels/train.py" line="88"/>
        <source>step {step:,}</source>
        <translation>第 {step:,} 步</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="240"/>
        <source>step {step:,} ({seconds:.0f} s): {loss}{score} {value:.1f} %{agreement}; {probe} -&gt; {said}</source>
        <translation>第 {step:,} 步（{seconds:.0f} 秒）：{loss}{score} {value:.1f} %{agreement}；{probe} -&gt; {said}</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/attention.py" line="100"/>
        <location filename="../../attnviz/render/figure_painter.py" line="221"/>
        <source>step {step}</source>
        <translation>第 {step} 步</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="275"/>
        <source>Step ▶</source>
        <translation>单步 ▶</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="318"/>
        <source>Steps</source>
        <translation>步骤</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="149"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="49"/>
        <source>stop after N epochs; the learning-rate schedule still spans --epochs (default: --epochs)</source>
        <translation>训练 N 个迭代周期后停止；学习率调度仍按 --epochs 安排（默认：--epochs）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="151"/>
        <source>Stop after the step under way; the model as it is then opens in the window</source>
        <translation>在当前这一步完成后停止；届时的模型会在窗口中打开</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="144"/>
        <source>Stop after this many minutes even if epochs remain (0: no limit)</source>
        <translation>训练达到此分钟数后即停止，即使还有未完成的迭代周期（0：不限）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="47"/>
        <source>stop after this much wall-clock time (default: no limit)</source>
        <translation>实际用时达到此值后停止（默认：不限）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/status_bar.py" line="123"/>
        <source>Stopped at attnviz's limit of {count} tokens: the model's folder sets no length limit of its own</source>
        <translation>在 attnviz 的 {count} 个词元上限处停止：该模型的文件夹没有设定自己的长度上限</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="261"/>
        <source>stopped at step {step:,}: held-out {score} at least {level:g} % at {count} evaluations in a row (--learned 0 trains every epoch)</source>
        <translation>在第 {step:,} 步停止：留出集上的{score}连续 {count} 次评估都不低于 {level:g}%（--learned 0 会训练完所有轮）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="106"/>
        <source>stopped by the user</source>
        <translation>由用户停止</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/epochs.py" line="86"/>
        <source>stopped; continue the schedule with the same command and --resume ({path})</source>
        <translation>已停止；用同一命令加 --resume 继续执行该调度（{path}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="424"/>
        <source>Stopping after this step; the model will open as it is…</source>
        <translation>将在这一步之后停止；模型会按当时的状态打开…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="39"/>
        <source>SVG vector image (*.svg)</source>
        <translation>SVG 矢量图 (*.svg)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="124"/>
        <source>Switch every head on again</source>
        <translation>重新打开所有头</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/head_grid.py" line="403"/>
        <source>Switch head {layer}.{head} off</source>
        <translation>关闭第 {layer} 层第 {head} 个头</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/head_grid.py" line="403"/>
        <source>Switch head {layer}.{head} on again</source>
        <translation>重新打开第 {layer} 层第 {head} 个头</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/shared.py" line="26"/>
        <source>switch heads off: kind:layer.head, comma-separated, counted from 1, e.g. cross:2.1,enc:1.3 (kinds: enc, dec, cross)</source>
        <translation>关闭注意力头：种类:层.头，逗号分隔，从 1 开始计数，例如 cross:2.1,enc:1.3（种类：enc、dec、cross）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="83"/>
        <source>Switch this head off</source>
        <translation>关闭这个头</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="83"/>
        <source>Switch this head on again</source>
        <translation>重新打开这个头</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/analysis.py" line="217"/>
        <source>Switching every head on…</source>
        <translation>正在打开所有头…</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/analysis.py" line="217"/>
        <source>Switching heads off…</source>
        <translation>正在关闭头…</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/images.py" line="26"/>
        <source>T-shirt/top</source>
        <translation>T恤/上衣</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/compat.py" line="46"/>
        <source>T5's relative position bias</source>
        <translation>T5 的相对位置偏置</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="328"/>
        <source>Tab-separated pairs, source&lt;TAB&gt;target (*.tsv *.txt);;All files (*)</source>
        <translation>制表符分隔的句对，源&lt;TAB&gt;目标 (*.tsv *.txt);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/positional.py" line="71"/>
        <source>Table</source>
        <translation>表格</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="135"/>
        <source>Table 1</source>
        <translation>表 1</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="156"/>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="307"/>
        <source>Teacher forcing: the decoder takes these words, then goes on by itself; Enter to decode</source>
        <translation>强制教学：解码器先采用这些词，再自行继续；按 Enter 解码</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="85"/>
        <source>Test error</source>
        <translation>测试误差</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="85"/>
        <location filename="../../attnviz/gui/panels/train.py" line="51"/>
        <location filename="../../attnviz/training/live_kernel.py" line="22"/>
        <source>test MSE</source>
        <translation>测试 MSE</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="129"/>
        <source>test x (queries)</source>
        <translation>测试 x（查询）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="151"/>
        <location filename="../../attnviz/gallery.py" line="184"/>
        <source>test x (sorted)</source>
        <translation>测试 x（已排序）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="193"/>
        <source>Text at the size the system sets (Ctrl+0)</source>
        <translation>文字恢复为系统设定的大小（Ctrl+0）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="616"/>
        <source>Text files (*.txt *.tsv);;All files (*)</source>
        <translation>文本文件 (*.txt *.tsv);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="608"/>
        <source>Text files (*.txt);;All files (*)</source>
        <translation>文本文件 (*.txt);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="207"/>
        <source>Text size {scale:.0%}</source>
        <translation>文字大小 {scale:.0%}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="244"/>
        <source>the 2.5th percentile of the mean over 1,000 bootstrap resamples of the pairs</source>
        <translation>对各对做 1,000 次自助重抽样所得均值的第 2.5 百分位数</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="246"/>
        <source>the 97.5th percentile of the same resampled means</source>
        <translation>同一批重抽样均值的第 97.5 百分位数</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/tasks.py" line="165"/>
        <source>the anti-diagonal</source>
        <translation>反对角线</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads_images.py" line="40"/>
        <source>the atlas of a folder of images runs in one process: run attnviz heads without --processes or torchrun</source>
        <translation>图像文件夹的注意力头图谱只在一个进程中运行：请不带 --processes、也不经 torchrun 运行 attnviz heads</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="89"/>
        <source>The attention map as large as the screen allows, with the sentence, the translation, the top-5 and the step buttons only ({key}; Esc leaves)</source>
        <translation>注意力图尽可能大，只留下句子、译文、前 5 个候选词元和单步按钮（{key}；Esc 退出）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="183"/>
        <source>the attention-based method, in words</source>
        <translation>基于注意力的方法（文字）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="121"/>
        <source>The Bahdanau Attention Mechanism</source>
        <translation>Bahdanau 注意力机制</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="203"/>
        <source>The bandwidth h: Gaussian pooling weights (test × train)</source>
        <translation>带宽 h：高斯核汇聚的权重（测试 × 训练）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="225"/>
        <location filename="../../attnviz/core/columns.py" line="232"/>
        <source>the bin of the query's position</source>
        <translation>查询位置所在的区间</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="206"/>
        <source>the bin of the query's position, counted from 1: 1-16, 17-128, 129-1024 or 1025-4096 (`attnviz heads` over decoded sentences: the source position for enc-self, the target position for cross and a translation's dec-self, the place in prompt + answer for a decoder-only model; `attnviz explain`: the explained step's query, the masked position for a BERT)</source>
        <translation>查询位置所在的区间，从 1 开始计：1-16、17-128、129-1024 或 1025-4096（`attnviz heads` 基于解码出的句子时：对 enc-self 为源位置，对 cross 和翻译模型的 dec-self 为目标位置，对仅解码器模型为其在提示 + 回答中的位置；`attnviz explain`：所解释那一步的查询，对 BERT 为被遮盖的位置）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="178"/>
        <source>the bin's centre (bins of 0.1 from −1 to 1)</source>
        <translation>区间中心（从 −1 到 1，每 0.1 一个区间）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="281"/>
        <source>the block, from 1, whose output is patched (a Transformer's encoder; the one stack of the other models)</source>
        <translation>其输出被修补的块，从 1 起（Transformer 的编码器；其他模型的唯一一叠）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="761"/>
        <source>The book's attention figures</source>
        <translation>书中的注意力图表</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/hf_dialog.py" line="140"/>
        <source>The cache {cache} cannot be read ({error}). Choose a model folder instead.</source>
        <translation>无法读取缓存 {cache}（{error}）。请改为选择一个模型文件夹。</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/train.py" line="256"/>
        <source>the checkpoint could not be saved: {error}; {path} is as it was</source>
        <translation>无法保存检查点：{error}；{path} 保持原样</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="373"/>
        <source>The checkpoint {name} has changed since this session was saved (its SHA-256 differs): the attention shown may differ from what was saved.</source>
        <translation>检查点 {name} 在保存此会话后已更改（其 SHA-256 不同）：显示的注意力可能与保存时不同。</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="78"/>
        <source>the checkpoint's training history: a flip-book (GIF and PDF, a frame per snapshot) and the curves and maps in --format</source>
        <translation>检查点的训练历史：翻页动画（GIF 和 PDF，每个快照一帧）以及 --format 格式的曲线和注意力图</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="253"/>
        <source>the clean input</source>
        <translation>干净输入</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="284"/>
        <source>the clean input token at that position</source>
        <translation>干净输入在该位置的词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/live.py" line="46"/>
        <source>the clean sentence is empty</source>
        <translation>干净的句子是空的</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="254"/>
        <source>the corrupt input</source>
        <translation>损坏输入</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="164"/>
        <source>the decoder of this {kind}</source>
        <translation>此 {kind} 的解码器</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="173"/>
        <source>the decoding so far ({tokens})</source>
        <translation>目前的解码（{tokens}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/tasks.py" line="163"/>
        <source>the diagonal</source>
        <translation>对角线</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/figure_files.py" line="45"/>
        <source>the disk is full</source>
        <translation>磁盘已满</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/figure_files.py" line="46"/>
        <source>the disk is read-only</source>
        <translation>磁盘是只读的</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/figure_files.py" line="45"/>
        <source>the disk quota is used up</source>
        <translation>磁盘配额已用完</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/book_dialog.py" line="69"/>
        <source>The edition of “Dive into Deep Learning” you read: its section numbers are the ones shown (the other edition's number stands beside)</source>
        <translation>你所读的《动手学深度学习》版本：显示的是该版本的节号（另一版本的节号列在旁边）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="640"/>
        <source>The effect of the bandwidth</source>
        <translation>带宽的影响</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="178"/>
        <source>the encoder of this {kind}</source>
        <translation>此 {kind} 的编码器</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="120"/>
        <source>The explanations cover attnviz's own models, not this one</source>
        <translation>这些解释方法只适用于 attnviz 自带的模型，不适用于这个模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/pairs.py" line="59"/>
        <source>the file has no pair (clean&lt;TAB&gt;corrupt&lt;TAB&gt;answer&lt;TAB&gt;alternative per line)</source>
        <translation>文件中没有任何一对（每行：干净&lt;TAB&gt;损坏&lt;TAB&gt;答案&lt;TAB&gt;备选）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/header.py" line="30"/>
        <source>the file is {gb:.1f} GB, larger than any attnviz checkpoint (at most {most:.1f} GB): not a checkpoint</source>
        <translation>文件大小为 {gb:.1f} GB，超过任何 attnviz 检查点（最多 {most:.1f} GB）：不是检查点</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="358"/>
        <source>the file's first sentence</source>
        <translation>文件中的第一个句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="119"/>
        <source>the first method: attention (raw, the last layer's heads' mean), rollout, flow, norm (norm-based), grad_x_input, grad_x_input_detached, ig (integrated gradients), occlusion, leave_one_out, leave_one_out_tvd; an image model: attention ([CLS]'s row over the patches), rollout, grad_x_input, ig and occlusion (each patch made black), over its patches</source>
        <translation>第一种方法：attention（原始注意力，最后一层各头的均值）、rollout、flow、norm（基于范数）、grad_x_input、grad_x_input_detached、ig（积分梯度）、occlusion、leave_one_out、leave_one_out_tvd；图像模型：attention（[CLS] 在各图块上的那一行）、rollout、grad_x_input、ig 和 occlusion（每个图块涂黑），均在其图块上</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="129"/>
        <source>the first quartile of τ</source>
        <translation>τ 的第一四分位数</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/flipbook.py" line="381"/>
        <source>The flip-book export was cancelled: nothing was written.</source>
        <translation>翻页动画导出已取消：没有写入任何文件。</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/flipbook.py" line="152"/>
        <source>The flip-book is too large: its GIF would take {frames} frames of {width}×{height} pixels even at the smallest scale ({scale:g}×), over the {budget} a GIF may have (frames × width × height, and {frame_millions} million a frame, so that it fits in memory). Decode a shorter sentence or show one head instead of all heads. Nothing was written.</source>
        <translation>翻页动画太大：即使按最小缩放比例（{scale:g}×），其 GIF 也需要 {frames} 帧 {width}×{height} 像素，超过了 GIF 允许的 {budget}（帧数 × 宽 × 高，且每帧不超过 {frame_millions} 百万像素，以便能放进内存）。请解码更短的句子，或只显示一个头而不是所有头。没有写入任何文件。</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/flipbook.py" line="164"/>
        <source>The flip-book's GIF is drawn at {fitted:g}× instead of {scale:g}×: {frames} frames at {scale:g}× would be over the {budget} a GIF may have (frames × width × height; {frame_millions} million a frame).</source>
        <translation>翻页动画的 GIF 按 {fitted:g}× 而不是 {scale:g}× 绘制：{scale:g}× 下的 {frames} 帧会超过 GIF 允许的 {budget}（帧数 × 宽 × 高；每帧 {frame_millions} 百万像素）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/classify.py" line="25"/>
        <source>the folder of Fashion-MNIST's four idx files: print the top-1 accuracy on its 10,000 test images instead</source>
        <translation>存放 Fashion-MNIST 四个 idx 文件的文件夹：改为输出其 10,000 张测试图像上的 top-1 准确率</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/to_hf.py" line="19"/>
        <source>the folder to write (must not exist)</source>
        <translation>要写入的文件夹（必须不存在）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/safe_output.py" line="93"/>
        <source>the folder {folder} does not exist</source>
        <translation>文件夹 {folder} 不存在</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="14"/>
        <source>the following arguments are required: %s</source>
        <translation>缺少以下必需参数：%s</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="496"/>
        <source>The head atlas covers translation models (attnviz's own and Hugging Face folders): this model's heads cannot be switched off</source>
        <translation>头图谱适用于翻译模型（attnviz 自带的和 Hugging Face 文件夹中的）：这个模型的头无法关闭</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="55"/>
        <source>The head of the raw and norm-based attention rows, or the heads' mean</source>
        <translation>原始注意力行与基于范数的注意力行所用的头，或各头的平均</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="159"/>
        <source>The head whose sinks are drawn, or the mean of a layer's heads</source>
        <translation>要绘制其注意力汇聚的头，或某一层各头的平均</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="65"/>
        <location filename="../../attnviz/core/columns.py" line="189"/>
        <location filename="../../attnviz/core/columns.py" line="205"/>
        <source>the head within the layer, from 1</source>
        <translation>层内的头，从 1 开始</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="169"/>
        <source>the head's `importance` or `importance_normalised`</source>
        <translation>该头的 `importance` 或 `importance_normalised`</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="276"/>
        <source>the head's mean attention entropy (nats)</source>
        <translation>该头的平均注意力熵（奈特）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="247"/>
        <source>the head's mean attention entropy in the corrupt run, −Σ w ln w over a row, in nats (near 0: a saturated softmax, where attribution patching fails)</source>
        <translation>该头在损坏运行中的平均注意力熵，每行 −Σ w ln w，单位奈特（接近 0：softmax 饱和，归因修补在此失效）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="265"/>
        <source>the head's mean attention entropy in this pair's corrupt run (nats)</source>
        <translation>该头在这一对的损坏运行中的平均注意力熵（奈特）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="273"/>
        <source>the head's mean share restored by patching</source>
        <translation>该头经修补恢复的平均份额</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="167"/>
        <source>the head's place in heads.csv's order, from 1 (the figure's ticks name each layer's head 1 as layer.1)</source>
        <translation>该头在 heads.csv 顺序中的位置，从 1 开始（图中刻度把每层的第 1 个头标为 层.1）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="263"/>
        <location filename="../../attnviz/core/columns.py" line="272"/>
        <source>the head, from 1</source>
        <translation>头，从 1 起</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="605"/>
        <source>The Image dock shows one layer at a time: change its layer, or Show ▸ rollout.</source>
        <translation>图像面板一次显示一层：可换层，或在“显示”中选择注意力展开。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/compare.py" line="147"/>
        <source>The image model to compare with the loaded one, on the same image</source>
        <translation>在同一张图像上与已加载模型比较的图像模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="58"/>
        <source>the image to read (image models): every layer × head map, and [CLS]'s attention and rollout over the image</source>
        <translation>要读取的图像（图像模型）：每个层 × 头的注意力图，以及 [CLS] 在图像上的注意力和注意力展开</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="328"/>
        <source>the image's positions</source>
        <translation>图像的位置</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="221"/>
        <source>The images directly in a folder (PNG, JPEG, WebP, BMP, GIF), by name</source>
        <translation>文件夹中直接包含的图像（PNG、JPEG、WebP、BMP、GIF），按文件名排序</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="97"/>
        <source>the importance divided by the ℓ2 norm of its layer's importances (per kind): the score the pruning order sorts by, least important first</source>
        <translation>重要性除以该层（按种类）重要性的 ℓ2 范数：剪枝顺序据此排序，最不重要的在前</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="283"/>
        <source>the input position, from 1</source>
        <translation>输入位置，从 1 起</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="146"/>
        <source>The input whose attention map is drawn after every snapshot</source>
        <translation>探针输入（probe input）：每个快照之后都会绘制其注意力图的输入</translation>
    </message>
    <message>
        <location filename="../../attnviz/app.py" line="46"/>
        <source>the interface's language: en or zh_CN (any command takes it too; default: View ▸ Language's choice, else the system's)</source>
        <translation>界面语言：en 或 zh_CN（所有命令都接受此选项；默认：视图 ▸ 语言中的选择，否则跟随系统）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="34"/>
        <source>the job spans this many machines, each running the same command with its own --node-rank (default 1)</source>
        <translation>作业跨越的机器数，每台机器运行相同的命令并带上各自的 --node-rank（默认 1）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/distributed.py" line="335"/>
        <source>the job's store at {address} is gone (its launcher or machine stopped)</source>
        <translation>作业位于 {address} 的存储已不在（其启动进程或机器已停止）</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="275"/>
        <source>the kernel must be one of: {names}</source>
        <translation>核必须是以下之一：{names}</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="280"/>
        <source>the kernel's bandwidth must be from {low} to {high} and its query from {query_low:g} to {query_high:g}</source>
        <translation>核的带宽必须在 {low} 到 {high} 之间，查询必须在 {query_low:g} 到 {query_high:g} 之间</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="166"/>
        <source>the kind of attention, in words</source>
        <translation>注意力的种类（文字）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="261"/>
        <location filename="../../attnviz/core/columns.py" line="270"/>
        <source>the kind, as in patching.csv</source>
        <translation>注意力种类，同 patching.csv</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="140"/>
        <source>the layer of the attention explained, from 1 (a translator: its decoder layers' cross-attention; the small BERT: its encoder layers at the masked position; an image model: its layers' [CLS] row)</source>
        <translation>所解释的注意力所在的层，从 1 开始（翻译模型：各解码器层的编码器－解码器注意力；小型 BERT：各编码器层在被遮蔽位置上的注意力；图像模型：各层中 [CLS] 的那一行）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="52"/>
        <source>The layer of the raw and norm-based attention rows (rollout and flow run up to it)</source>
        <translation>原始注意力行与基于范数的注意力行所用的层（展开与流计算到这一层为止）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="530"/>
        <source>the layer's mean</source>
        <translation>该层平均</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="151"/>
        <location filename="../../attnviz/core/columns.py" line="162"/>
        <location filename="../../attnviz/core/columns.py" line="184"/>
        <source>the layer, from 1</source>
        <translation>层，从 1 开始</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="64"/>
        <location filename="../../attnviz/core/columns.py" line="188"/>
        <location filename="../../attnviz/core/columns.py" line="204"/>
        <source>the layer, from 1 (nearest the input)</source>
        <translation>层，从 1 开始（最靠近输入）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="533"/>
        <source>the layers of this {kind}</source>
        <translation>此 {kind} 的各层</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/batch.py" line="111"/>
        <source>The longest ({width} tokens): no padding. Choose a shorter sentence to see masked keys.</source>
        <translation>最长的句子（{width} 个词元）：没有填充。选择较短的句子以查看被掩蔽的键。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="126"/>
        <source>The manual, a page per topic, in your web browser (offline)</source>
        <translation>使用手册，每个主题一页，在网页浏览器中打开（离线）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="530"/>
        <source>the mask's rollout after layers 1–{n}</source>
        <translation>第 1–{n} 层后掩蔽处的展开</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="290"/>
        <source>the mean of its heads' `mean_distance_px` (image_heads.csv)</source>
        <translation>其各头 `mean_distance_px` 的平均（image_heads.csv）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="130"/>
        <source>the median of τ</source>
        <translation>τ 的中位数</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="69"/>
        <source>the methods to compute, comma-separated, from {methods} (default all)</source>
        <translation>要计算的方法，以逗号分隔，可选 {methods}（默认全部）</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/live.py" line="215"/>
        <location filename="../../attnviz/training/vision_tasks.py" line="123"/>
        <location filename="../../attnviz/training/vision_tasks.py" line="127"/>
        <source>the model cannot be built: {problem}</source>
        <translation>无法构建模型：{problem}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/fill_mask.py" line="110"/>
        <location filename="../../attnviz/core/hf/encoder.py" line="260"/>
        <source>the model cannot fill in {word!r}: its vocabulary has no such word</source>
        <translation>模型不能填入 {word!r}：它的词表里没有这个词</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/stepping.py" line="174"/>
        <source>the model cannot say {token!r}: its target vocabulary has no such token</source>
        <translation>模型无法生成 {token!r}：其目标词表中没有这个词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/attention/recording.py" line="45"/>
        <source>the model computed attention or predictions that are not finite (NaN or infinity): its weights or its config hold numbers that break the computation, so attnviz shows, ranks and writes none of them</source>
        <translation>模型算出的注意力或预测不是有限数（NaN 或无穷大）：其权重或配置中的数值破坏了计算，因此 attnviz 不显示、不排序也不写出其中任何一项</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="371"/>
        <source>The model folder {name} has changed since this session was saved (its config or its files' sizes differ): the attention shown may differ from what was saved.</source>
        <translation>模型文件夹 {name} 在保存此会话后已更改（其配置或文件大小不同）：显示的注意力可能与保存时不同。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/vision.py" line="153"/>
        <source>the model folder's image processor cannot prepare it ({error})</source>
        <translation>模型文件夹的图像处理器无法处理它（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/vision.py" line="157"/>
        <source>the model folder's image processor makes a picture of {height} × {width} pixels in {channels} channels of it; the model reads {wanted}</source>
        <translation>模型文件夹的图像处理器把它处理成 {height} × {width} 像素、{channels} 个通道的图片；模型读取的是 {wanted}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="44"/>
        <source>The model knows only Fashion-MNIST's 10 classes of clothing, learnt from 28 × 28 grey pictures on a black ground: any picture gets one of them.</source>
        <translation>这个模型只认识 Fashion-MNIST 的 10 类服饰，学自黑底上的 28 × 28 灰度图：任何图片都会被归入其中一类。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="46"/>
        <source>The model knows only its {count:,} classes: any picture gets one of them.</source>
        <translation>这个模型只认识它自己的 {count:,} 个类别：任何图片都会被归入其中一类。</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/images.py" line="65"/>
        <source>The model on show</source>
        <translation>当前模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/compare.py" line="55"/>
        <location filename="../../attnviz/gui/panels/compare.py" line="148"/>
        <source>The model to compare with the loaded one, on the same sentence</source>
        <translation>在同一句子上与已加载模型比较的模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="683"/>
        <source>The model was not saved: {error}</source>
        <translation>模型未保存：{error}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="293"/>
        <location filename="../../attnviz/core/hf/load.py" line="154"/>
        <source>the model would take {gb:.1f} GB of memory, more than attnviz loads</source>
        <translation>该模型将占用 {gb:.1f} GB 内存，超出 attnviz 可加载的上限</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/image_reading.py" line="155"/>
        <source>the model's class scores are not finite (NaN or infinity): its weights or its settings hold numbers that break the computation, so attnviz ranks no class</source>
        <translation>模型的类别分数不是有限数（NaN 或无穷大）：其权重或设置中的数值破坏了计算，因此 attnviz 不对任何类别排序</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="406"/>
        <source>The model's own name: {name}</source>
        <translation>模型自己的名称：{name}</translation>
    </message>
    <message>
        <location filename="../../attnviz/modern_gallery.py" line="149"/>
        <source>the model's scores</source>
        <translation>模型的评分</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/figure_files.py" line="48"/>
        <source>the name is too long</source>
        <translation>名称太长</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/device.py" line="24"/>
        <source>the number of threads must be from 1 to {most}, got {threads}</source>
        <translation>线程数必须在 1 到 {most} 之间，实际为 {threads}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/distributed.py" line="273"/>
        <source>the other processes</source>
        <translation>其他进程</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="164"/>
        <source>The pair whose maps are shown, and whose clean side patched heads come from</source>
        <translation>显示其注意力图的最小对；被修补的头的输出来自它的干净一侧</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="252"/>
        <source>the pair's line in --pairs (`generated` for --task)</source>
        <translation>该对在 --pairs 中的行（--task 时为 `generated`）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="280"/>
        <source>the pair, from 1, as in pairs.csv</source>
        <translation>该对，从 1 起，同 pairs.csv</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="251"/>
        <source>the pair, from 1, in the order patched</source>
        <translation>该对，从 1 起，按修补顺序</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="205"/>
        <source>the path is too long to name a file</source>
        <translation>路径过长，不能指向文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/flipbook.py" line="339"/>
        <source>the PDF and the GIF cannot both be written to {path}</source>
        <translation>PDF 和 GIF 不能同时写入 {path}</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/flipbook.py" line="400"/>
        <location filename="../../attnviz/render/pictures.py" line="76"/>
        <source>the PDF came out incomplete</source>
        <translation>生成的 PDF 不完整</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/flipbook.py" line="91"/>
        <source>the PDF could not be opened</source>
        <translation>无法打开 PDF</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/pictures.py" line="29"/>
        <source>the PNG could not be encoded ({error})</source>
        <translation>无法编码 PNG（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/figure_files.py" line="65"/>
        <source>the PNG scale must be a number from {low:g} to {high:g}, got {scale!r}</source>
        <translation>PNG 缩放比例必须是 {low:g} 到 {high:g} 之间的数，实际为 {scale!r}</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="188"/>
        <source>the position table has {count} rows, not one per patch</source>
        <translation>位置表有 {count} 行，不是每个图块一行</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/probe_image.py" line="29"/>
        <source>The probe image: each patch tinted by the share of [CLS]'s attention on it (its rollout over every layer); the shape's patches, the right attention, outlined in green</source>
        <translation>探针图像：每个图像块按 [CLS] 的注意力落在它上面的份额着色（经所有层的注意力展开）；形状所在的图像块，即正确的注意力，用绿色框出</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/live.py" line="157"/>
        <source>the probe sentence is empty</source>
        <translation>探针输入句子为空</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/live.py" line="126"/>
        <source>the probe {text!r} is longer than the {name} task's inputs ({low} to {high} digits)</source>
        <translation>探针输入 {text!r} 比 {name} 任务的输入更长（{low} 到 {high} 个数字）</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/vision_tasks.py" line="113"/>
        <source>the probe {text!r} is not a probe of the {name} task: give the seed of its probe image, a whole number (e.g. {example})</source>
        <translation>{text!r} 不是 {name} 任务的探针：请给出其探针图像的种子，一个整数（例如 {example}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/live.py" line="123"/>
        <source>the probe {text!r} is not an input of the {name} task (e.g. {example!r})</source>
        <translation>探针输入 {text!r} 不是 {name} 任务的输入（例如 {example!r}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="411"/>
        <source>the prompt of this {kind}</source>
        <translation>此 {kind} 的提示词</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/pruning.py" line="100"/>
        <source>the pruning curve needs reference translations (source&lt;TAB&gt;reference lines)</source>
        <translation>剪枝曲线需要参考译文（“源句子&lt;TAB&gt;参考译文”行）</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/analysis.py" line="118"/>
        <source>The pruning curve needs reference translations: choose a file of source&lt;TAB&gt;reference lines.</source>
        <translation>剪枝曲线需要参考译文：请选择每行为“源句子&lt;TAB&gt;参考译文”的文件。</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/offscreen.py" line="74"/>
        <source>the Python package {name} is not installed</source>
        <translation>未安装 Python 包 {name}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="215"/>
        <source>the query rows averaged: those of the bin that could see such a key, over every document or decoded sentence (`attnviz explain`: one row per explained step)</source>
        <translation>参与平均的查询行：该区间内能看到此类键的行，遍及所有文档或解码出的句子（`attnviz explain`：每个被解释的步骤一行）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="653"/>
        <source>The Q·K·V computation of one query, with the trained model's numbers</source>
        <translation>一个查询的 Q·K·V 计算过程，使用训练好的模型的数值</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="99"/>
        <source>the relative position key − query (−4 … +4) that is most often the row's argmax (cross: key − target position)</source>
        <translation>最常成为行最大值的相对位置 键 − 查询（−4 … +4）（cross：键 − 目标位置）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="215"/>
        <source>the rendezvous holds no options of machine 0 ({error}): is it attnviz's?</source>
        <translation>会合点没有 0 号机器的选项（{error}）：它是 attnviz 的吗？</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="111"/>
        <source>the same as a percentage of all the model's heads</source>
        <translation>同上，以占模型全部头数的百分比表示</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="156"/>
        <source>the same for norm-based attention ‖Σ_h α_h f_h(x)‖ as a share of its sum over the keys</source>
        <translation>基于范数的注意力 ‖Σ_h α_h f_h(x)‖ 的同一比例（占其在所有键上之和）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="218"/>
        <source>the same share of the norm view: Σ_{j∈keys} α_ij ‖f_h(x_j)‖ / Σ_j α_ij ‖f_h(x_j)‖, f_h the value through the head's part of the output projection; `n/a` where attnviz does not know the model's output projection</source>
        <translation>范数视角下的同一份额：Σ_{j∈keys} α_ij ‖f_h(x_j)‖ / Σ_j α_ij ‖f_h(x_j)‖，f_h 为值向量经过该头在输出投影中对应部分的结果；attnviz 不知道模型的输出投影时为 `n/a`</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="218"/>
        <source>The sample images ({count})</source>
        <translation>示例图像（{count} 张）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="124"/>
        <source>the second method; `|name|` is that signed row taken as magnitudes</source>
        <translation>第二种方法；`|name|` 表示该带符号行取绝对值</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="250"/>
        <source>the sentence is longer than {most:,} characters</source>
        <translation>句子超过 {most:,} 个字符</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/encoder.py" line="198"/>
        <source>The sentence is {count} tokens long with the tokenizer's special tokens; this model reads at most {most}.</source>
        <translation>连同分词器的特殊词元，这个句子长 {count} 个词元；这个模型最多读 {most} 个。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/fill_mask.py" line="89"/>
        <source>The sentence is {count} tokens long with {cls} and {sep}; this model reads at most {most}.</source>
        <translation>连同 {cls} 和 {sep}，句子共有 {count} 个词元；此模型最多读 {most} 个。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/live.py" line="159"/>
        <source>the sentence reads as {count} tokens and the clean side as {other}: a head is patched position by position</source>
        <translation>这个句子读作 {count} 个词元，干净的一侧读作 {other} 个：头是逐个位置修补的</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="57"/>
        <source>the sentence to decode (translation models)</source>
        <translation>要解码的句子（翻译模型）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="534"/>
        <source>The sentence, its masks filled so far</source>
        <translation>句子（已填的掩蔽）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="223"/>
        <source>The sentences of this session</source>
        <translation>本次会话的句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="212"/>
        <source>the session has no {key!r}</source>
        <translation>会话中没有 {key!r}</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="395"/>
        <source>the session's checkpoint {path} cannot be read: {reason}</source>
        <translation>无法读取会话的检查点 {path}：{reason}</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="312"/>
        <source>the session's checkpoint {path} cannot be used: {reason}</source>
        <translation>无法使用会话的检查点 {path}：{reason}</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="333"/>
        <source>the session's checkpoint {path} is missing</source>
        <translation>会话的检查点 {path} 不存在</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="329"/>
        <source>the session's checkpoint {path} is missing; its path relative to the session, {relative}, leads out of the session's folder to {outside}</source>
        <translation>会话的检查点 {path} 不存在；它相对于会话的路径 {relative} 指向会话文件夹之外的 {outside}</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="398"/>
        <source>the session's checkpoint {path} is refused: {problem}</source>
        <translation>会话的检查点 {path} 被拒绝：{problem}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/settings.py" line="250"/>
        <source>The settings file {path} is damaged (not a valid settings file) and could not be rewritten; your settings last until you quit.</source>
        <translation>设置文件 {path} 已损坏（不是有效的设置文件），且无法重写；你的设置只保留到退出为止。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/settings.py" line="247"/>
        <source>The settings file {path} was damaged (not a valid settings file): what could not be read was dropped, and the file has been rewritten with your current settings.</source>
        <translation>设置文件 {path} 曾损坏（不是有效的设置文件）：无法读取的部分已丢弃，并已用你当前的设置重写该文件。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="49"/>
        <source>the share lost when the head's output is taken from the corrupt run into the clean one: (m_clean − m) / (m_clean − m_corrupt)</source>
        <translation>把该头的输出从损坏运行放入干净运行时失去的份额：(m_clean − m) / (m_clean − m_corrupt)</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="101"/>
        <source>the share of rows whose argmax is at `positional_offset`</source>
        <translation>最大值位于 `positional_offset` 的行所占比例</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="285"/>
        <source>the share of the logit difference restored when that block's output at that position comes from the clean run into the corrupt one</source>
        <translation>该块在该位置的输出从干净运行放入损坏运行时恢复的 logit 差份额</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="46"/>
        <source>the share of the logit difference restored when the head's output (all positions, before the output projection) is taken from the clean run into the corrupt one: (m − m_corrupt) / (m_clean − m_corrupt)</source>
        <translation>把该头的输出（所有位置，输出投影之前）从干净运行放入损坏运行时恢复的 logit 差份额：(m − m_corrupt) / (m_clean − m_corrupt)</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="133"/>
        <source>the share of tokens whose τ is significant at p &lt; 0.05 (two-sided; exact without ties, else the normal approximation with ties), Jain &amp; Wallace 2019's "Sig. Frac."</source>
        <translation>τ 在 p &lt; 0.05 下显著的词元所占比例（双侧；无并列时精确计算，否则用考虑并列的正态近似），即 Jain &amp; Wallace 2019 的 “Sig. Frac.”</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="51"/>
        <source>the share restored when only the head's attention weights come from the clean run (its own values): whether it matters for where it looks</source>
        <translation>只有该头的注意力权重来自干净运行（值是它自己的）时恢复的份额：它是否因看向哪里而重要</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="53"/>
        <source>the share restored when only the head's values come from the clean run (its own attention weights): whether it matters for what it reads</source>
        <translation>只有该头的值来自干净运行（注意力权重是它自己的）时恢复的份额：它是否因读到什么而重要</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="170"/>
        <source>the source ({tokens})</source>
        <translation>源（{tokens}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="160"/>
        <source>the statistic shown (heads.csv's column of that name)</source>
        <translation>所示的统计量（heads.csv 中同名的列）</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/pictures.py" line="59"/>
        <source>the SVG came out incomplete</source>
        <translation>生成的 SVG 不完整</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/offscreen.py" line="71"/>
        <source>the system library {library} is missing (on Debian or Ubuntu: apt-get install {package})</source>
        <translation>缺少系统库 {library}（Debian 或 Ubuntu 上：apt-get install {package}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/long_prompt.py" line="100"/>
        <source>the target is {count:,} tokens long with the decoder's start token; this model reads at most {most:,}</source>
        <translation>加上解码器的起始词元，目标长 {count:,} 个词元；此模型最多读取 {most:,} 个</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/text.py" line="60"/>
        <source>the text is over {kib} KiB; attnviz reads one sentence of at most {kib} KiB</source>
        <translation>文本超过 {kib} KiB；attnviz 每次读取一个句子，最多 {kib} KiB</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="131"/>
        <source>the third quartile of τ</source>
        <translation>τ 的第三四分位数</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="255"/>
        <source>the token whose logit the metric adds</source>
        <translation>指标加上其 logit 的词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="256"/>
        <source>the token whose logit the metric subtracts</source>
        <translation>指标减去其 logit 的词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/vocab.py" line="104"/>
        <source>the tokenizer fails on this text ({kind}: {error})</source>
        <translation>分词器处理这段文本时出错（{kind}：{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/encoder.py" line="188"/>
        <source>the tokenizer of {name} has no mask token, so this model cannot be asked for a masked word</source>
        <translation>{name} 的分词器没有掩蔽词元，所以不能让此模型猜被掩蔽的词</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="145"/>
        <source>the tokens (an image model: the images) averaged (a constant row has no ρ)</source>
        <translation>参与平均的词元数（图像模型：图像数）（常数行没有 ρ）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="125"/>
        <source>the tokens (an image model: the images) where both rows have an order (a constant row has none); the other columns read `no token with an order` where there is none</source>
        <translation>两行都有次序的词元数（图像模型：图像数）（常数行没有次序）；没有这样的词元时其他列为 `no token with an order`</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="179"/>
        <source>the tokens (an image model: the images) whose τ falls in the bin</source>
        <translation>τ 落在该区间内的词元数（图像模型：图像数）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="157"/>
        <source>the tokens averaged (those whose keys hold such a token)</source>
        <translation>参与平均的词元数（键中含有此类词元的）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/classify.py" line="20"/>
        <source>the top-5 classes of each image (paths as arguments, or one a line on stdin), or --data's test accuracy</source>
        <translation>每张图像的前 5 个类别（路径作为参数给出，或从标准输入每行读一个），或 --data 的测试准确率</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/fill_mask.py" line="18"/>
        <source>the top-5 words for the first [MASK] of --text, or of each stdin line</source>
        <translation>--text 或标准输入每一行中第一个 [MASK] 的前 5 个词</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="252"/>
        <source>the training history is not an object</source>
        <translation>训练历史不是一个对象</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="258"/>
        <source>the training history must hold 1 to {count} snapshots</source>
        <translation>训练历史必须包含 1 到 {count} 个快照</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="255"/>
        <source>the training history's kind, task or score name is missing</source>
        <translation>训练历史缺少模型类型、任务或得分名称</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="265"/>
        <source>the training history's maps are not one cell per patch of its probe image</source>
        <translation>训练历史中的注意力图不是其探针图像的每个图像块一格</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="138"/>
        <source>the training history's probe image is not a grey image with its patches</source>
        <translation>训练历史中的探针图像不是带有其图像块的灰度图像</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="261"/>
        <source>the training history's snapshots are not in step order (each at a later step than the one before)</source>
        <translation>训练历史中的快照不是按步数顺序排列的（每个快照的步数都应晚于前一个）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="125"/>
        <source>The Transformer Architecture</source>
        <translation>Transformer 架构</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/encoder.py" line="200"/>
        <source>The two sentences are {count} tokens long together with the tokenizer's special tokens; this model reads at most {most}.</source>
        <translation>连同分词器的特殊词元，这两个句子共长 {count} 个词元；这个模型最多读 {most} 个。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/user_guide.py" line="19"/>
        <source>The user guide is not built in this copy of attnviz ({path} is missing): bash scripts/run.sh builds it, and its pages can be read in the repository's docs folder.</source>
        <translation>这份 attnviz 中没有构建好的用户指南（缺少 {path}）：运行 bash scripts/run.sh 即可构建；也可以直接阅读代码仓库 docs 文件夹中的页面。</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="267"/>
        <source>the view's kind must be one of: {names}</source>
        <translation>视图的注意力类型必须是以下之一：{names}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="387"/>
        <source>The width ({width}) must be a multiple of the heads ({heads}).</source>
        <translation>宽度（{width}）必须是头数（{heads}）的倍数。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="603"/>
        <source>The window shows one head at a time: the figure averages the heads.</source>
        <translation>窗口一次显示一个头：这张图是各头的平均。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="611"/>
        <source>The window shows the h = 0.1 panel; change the bandwidth there to see the others.</source>
        <translation>窗口中显示的是 h = 0.1 的面板；在那里更改带宽即可看到其他面板。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="63"/>
        <source>The word to explain: the one the step chose, or another of its candidates</source>
        <translation>要解释的词元：这一步选中的词元，或它的其他候选词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/flipbook.py" line="120"/>
        <location filename="../../attnviz/render/pictures.py" line="44"/>
        <source>the {kind} could not be finished</source>
        <translation>无法完成 {kind}</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/flipbook.py" line="101"/>
        <location filename="../../attnviz/render/pictures.py" line="38"/>
        <source>the {kind} could not be started</source>
        <translation>无法开始写入 {kind}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="138"/>
        <source>the {model} model has no {kind} (it has: {has})</source>
        <translation>{model} 模型没有{kind}（它有：{has}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/vision_tasks.py" line="117"/>
        <source>the {name} task's right attention is on patches of {patch} × {patch} pixels: leave patch_size as it is</source>
        <translation>{name} 任务的正确注意力落在 {patch} × {patch} 像素的图像块上：请不要更改 patch_size</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/alignment.py" line="79"/>
        <source>the {task} task has {count:,} distinct held-out inputs (of {total:,} in all): give --limit {count} or fewer</source>
        <translation>{task} 任务共有 {count:,} 个不同的留出输入（全部输入共 {total:,} 个）：请给出不大于 {count} 的 --limit</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/analysis.py" line="62"/>
        <source>There are no sentences yet: decode a few, or choose a file of sentences.</source>
        <translation>还没有句子：先解码几个句子，或选择一个句子文件。</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/panels.py" line="259"/>
        <source>there is no book figure {key!r}</source>
        <translation>没有书中图表 {key!r}</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="180"/>
        <source>there is no session file {name}</source>
        <translation>会话文件 {name} 不存在</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="142"/>
        <source>there is no source: source_tokens is empty</source>
        <translation>没有源：source_tokens 为空</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/fill_mask.py" line="185"/>
        <source>There is no {mask} in the sentence: write {mask} in place of a word to see what the model guesses there, e.g. “i {mask} to go home .”</source>
        <translation>句子里没有 {mask}：把某个词换成 {mask}，即可看模型在那里猜什么，例如“i {mask} to go home .”</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/fill_mask.py" line="189"/>
        <source>There is no {mask} left to fill: write {mask} in place of a word to see what the model guesses there.</source>
        <translation>已没有要填的 {mask}：把某个词换成 {mask}，即可看模型在那里猜什么。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="361"/>
        <source>There is nothing to copy yet.</source>
        <translation>还没有可复制的内容。</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/pictures.py" line="83"/>
        <source>There is nothing to copy yet: the heatmap is empty.</source>
        <translation>还没有可复制的内容：热图是空的。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="265"/>
        <source>There is nothing to export yet.</source>
        <translation>还没有可导出的内容。</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/flipbook.py" line="62"/>
        <source>There is nothing to export yet: a step's heatmap is empty.</source>
        <translation>还没有可导出的内容：某一步的热图是空的。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="318"/>
        <source>There is nothing to export yet: step the decoder first.</source>
        <translation>还没有可导出的内容：请先单步解码。</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/flipbook.py" line="60"/>
        <source>There is nothing to export yet: the decoding has no steps.</source>
        <translation>还没有可导出的内容：解码还没有任何步骤。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="373"/>
        <location filename="../../attnviz/render/figure_files.py" line="219"/>
        <source>There is nothing to export yet: the heatmap is empty.</source>
        <translation>还没有可导出的内容：热图是空的。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="308"/>
        <source>There is nothing to export yet: type a sentence first.</source>
        <translation>还没有可导出的内容：请先输入一个句子。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="394"/>
        <source>There is nothing to make a flip-book of yet: decode a sentence first.</source>
        <translation>还没有可制作翻页动画的内容：请先解码一个句子。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/fill_mask.py" line="165"/>
        <source>there is nothing to read: the sentence is empty</source>
        <translation>没有可读的内容：句子是空的</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/file_opening.py" line="89"/>
        <source>There is nothing to save yet: open a checkpoint first.</source>
        <translation>还没有可保存的内容：请先打开一个检查点。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/stepping.py" line="106"/>
        <source>there is nothing to translate: the sentence is empty</source>
        <translation>没有可翻译的内容：句子为空</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/encoder.py" line="105"/>
        <source>this folder has no masked-language-model head: it names no word</source>
        <translation>这个文件夹没有掩码语言模型头：它给不出词</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="57"/>
        <source>this input is not an image</source>
        <translation>此输入不是图像</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="36"/>
        <source>this machine's place in the job, from 0 (0 holds the rendezvous; default 0)</source>
        <translation>本机在作业中的序号，从 0 开始（0 号负责会合；默认 0）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/alignment.py" line="108"/>
        <source>this model does not know the {task} task's symbols (e.g. {symbol!r}): train one with attnviz train KIND --task {task}</source>
        <translation>这个模型不认识 {task} 任务的符号（例如 {symbol!r}）：请用 attnviz train KIND --task {task} 训练一个</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/gates.py" line="39"/>
        <source>this model does not say where its attention heads are</source>
        <translation>此模型没有说明它的注意力头在哪里</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="307"/>
        <location filename="../../attnviz/core/layout.py" line="335"/>
        <source>this model has no decoder self-attention</source>
        <translation>此模型没有解码器自注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="292"/>
        <source>this model has no encoder self-attention</source>
        <translation>此模型没有编码器自注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/live.py" line="66"/>
        <source>this model has no head {head}</source>
        <translation>这个模型没有头 {head}</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="112"/>
        <location filename="../../attnviz/figures/panels.py" line="80"/>
        <source>This model has no positional encoding</source>
        <translation>此模型没有位置编码</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="79"/>
        <source>This model has no positional encoding table</source>
        <translation>此模型没有位置编码表</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="581"/>
        <location filename="../../attnviz/core/layout.py" line="589"/>
        <location filename="../../attnviz/core/layout.py" line="461"/>
        <source>this model has no {kind}</source>
        <translation>此模型没有{kind}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="728"/>
        <source>this model records no prompt self-attention</source>
        <translation>此模型没有记录提示词的自注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_controls.py" line="155"/>
        <source>This prompt has {tokens} tokens: its maps are computed one at a time for the Attention view, and the answer is not stepped at this length.</source>
        <translation>此提示有 {tokens} 个词元：注意力视图的图逐个按需计算，此长度下不逐步生成回答。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_controls.py" line="149"/>
        <source>This sentence has {tokens} tokens: its maps are computed one at a time for the Attention view, and no mask is filled at this length (that would need every position's word probabilities).</source>
        <translation>此句子有 {tokens} 个词元：注意力视图的图逐个按需计算，此长度下不填充掩码（那需要每个位置上所有词的概率）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_controls.py" line="152"/>
        <source>This source has {tokens} tokens: its encoder's maps are computed one at a time for the Attention view, and it is not translated at this length (export a target's maps with attnviz export --prompt-map --target).</source>
        <translation>此源句有 {tokens} 个词元：注意力视图中编码器的图逐个按需计算，此长度下不翻译（目标的图可用 attnviz export --prompt-map --target 导出）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="325"/>
        <source>this {kind}</source>
        <translation>这个 {kind}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="138"/>
        <source>through the layers</source>
        <translation>逐层播放</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="104"/>
        <source>time limit ({minutes:g} min) reached</source>
        <translation>已到时间上限（{minutes:g} 分钟）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/status_bar.py" line="83"/>
        <source>Time the model took for the decoding step on show</source>
        <translation>模型完成当前所示解码步所用的时间</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="49"/>
        <source>tiny</source>
        <translation>微型</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/beam_search.py" line="121"/>
        <source>token id {id} is never decoded (&lt;bos&gt;, &lt;pad&gt; or banned): it cannot be forced</source>
        <translation>词元 id {id} 从不会被解码（&lt;bos&gt;、&lt;pad&gt; 或被禁用的词元）：无法强制</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/beam_search.py" line="138"/>
        <source>token id {id} is outside the vocabulary of {count} tokens</source>
        <translation>词元 id {id} 超出了 {count} 个词元的词表</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="224"/>
        <source>token {token!r}… is not a word (too long, or control characters)</source>
        <translation>词元 {token!r}… 不是一个词（过长，或含有控制字符）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="616"/>
        <location filename="../../attnviz/figures/explain.py" line="87"/>
        <location filename="../../attnviz/figures/explain.py" line="86"/>
        <source>tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="65"/>
        <source>tokens per forward pass of the gradient and occlusion methods (their variants in batches; default {tokens}), halved when the device runs out of memory; the numbers do not depend on it</source>
        <translation>梯度方法和遮挡方法每次前向传播的词元数（各变体分批计算；默认 {tokens}），设备内存不足时减半；结果与此无关</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="211"/>
        <source>top class {name} ({prob:.0%})</source>
        <translation>最可能的类别 {name}（{prob:.0%}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/image.py" line="308"/>
        <source>Top classes</source>
        <translation>最可能的类别</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/classify.py" line="124"/>
        <source>top-1 accuracy {accuracy:.2f} % on the {count:,} test images of {folder}</source>
        <translation>在 {folder} 的 {count:,} 张测试图像上的 top-1 准确率为 {accuracy:.2f} %</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="625"/>
        <source>top-k overlap {percent:.0f} %</source>
        <translation>top-k 重合率 {percent:.0f} %</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/distributed.py" line="411"/>
        <source>torchrun started {processes} processes on this machine, which has {gpus} GPU(s): start one process per GPU (--nproc-per-node {gpus}), or run on the CPU (--device cpu)</source>
        <translation>torchrun 在这台机器上启动了 {processes} 个进程，但它只有 {gpus} 块 GPU：每块 GPU 启动一个进程（--nproc-per-node {gpus}），或在 CPU 上运行（--device cpu）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/beams.py" line="113"/>
        <source>Total attention each source token has received so far (last layer, heads averaged): about 1 where a word was translated once, near 0 for a dropped word, well above 1 for a repeated one</source>
        <translation>每个源词元到目前为止获得的注意力总和（最后一层，各头取平均）：译过一次的词约为 1，漏译的词接近 0，重复的词远大于 1</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/docks.py" line="147"/>
        <location filename="../../attnviz/gui/panels/train.py" line="147"/>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="31"/>
        <source>train a model on sentence pairs and write a checkpoint</source>
        <translation>在句对上训练模型并写入检查点</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="150"/>
        <source>Train a new model with these settings; it opens in the window when done</source>
        <translation>用这些设置训练一个新模型；完成后它会在窗口中打开</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="327"/>
        <source>Train on a file of pairs</source>
        <translation>用句对文件训练</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="68"/>
        <source>train on a generated task whose right alignment is known, recording the training's history (default: none, train on --data; the user guide's "Watch it learn"; {learns}); mlm: an encoder-only model on the masked words of --data's English</source>
        <translation>在正确对齐已知的生成任务上训练，并记录训练历史（默认：无，在 --data 上训练；见用户指南“Watch it learn”；{learns}）；mlm：在 --data 英语部分的被遮蔽词上训练仅编码器模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="577"/>
        <source>trained: step {step:,} · agreement {agreement:.0f} %</source>
        <translation>训练完成：第 {step:,} 步 · 对齐一致率 {agreement:.0f}%</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/live.py" line="159"/>
        <source>training BLEU</source>
        <translation>训练集 BLEU</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="129"/>
        <source>Training data and the true function</source>
        <translation>训练数据与真实函数</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="166"/>
        <location filename="../../attnviz/commands/train.py" line="115"/>
        <source>training data not found: {path}</source>
        <translation>找不到训练数据：{path}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/epochs.py" line="30"/>
        <source>training diverged in epoch {epoch}: the weights became NaN or infinite (try a smaller --lr than {lr:g}); {kept}</source>
        <translation>训练在第 {epoch} 个迭代周期发散：权重变为 NaN 或无穷大（请尝试小于 {lr:g} 的 --lr）；{kept}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/live.py" line="381"/>
        <source>training diverged: the weights became NaN or infinite (try a smaller learning rate than {lr:g})</source>
        <translation>训练发散：权重变为 NaN 或无穷大（请尝试小于 {lr:g} 的学习率）</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/live_kernel.py" line="71"/>
        <source>training diverged: w became NaN or infinite (try a smaller learning rate than {lr:g})</source>
        <translation>训练发散：w 变为 NaN 或无穷大（请尝试小于 {lr:g} 的学习率）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="77"/>
        <source>Training loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="76"/>
        <location filename="../../attnviz/gallery.py" line="164"/>
        <location filename="../../attnviz/gallery.py" line="426"/>
        <source>training loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="178"/>
        <source>Training loss, by step</source>
        <translation>训练损失（按步数）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="153"/>
        <location filename="../../attnviz/gallery.py" line="123"/>
        <location filename="../../attnviz/gui/panels/kernel.py" line="69"/>
        <source>training points</source>
        <translation>训练样本</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="415"/>
        <source>Training resumed.</source>
        <translation>训练已继续。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="322"/>
        <source>training step</source>
        <translation>训练步数</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="445"/>
        <source>Training stopped: {message}</source>
        <translation>训练已停止：{message}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="397"/>
        <source>Training the book's kernel regression: the first snapshot shows the untrained model…</source>
        <translation>正在训练书中的核回归：第一个快照显示的是未训练的模型…</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="167"/>
        <location filename="../../attnviz/gui/panels/kernel.py" line="84"/>
        <source>training x</source>
        <translation>训练 x</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="129"/>
        <source>training x (keys)</source>
        <translation>训练 x（键）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="151"/>
        <location filename="../../attnviz/gallery.py" line="184"/>
        <source>training x (sorted)</source>
        <translation>训练 x（已排序）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="399"/>
        <source>Training {model} on {task}: the first snapshot shows the untrained model; training stops once held-out {score} is at least {level:g} % at {count} evaluations in a row…</source>
        <translation>正在 {task} 上训练 {model}：第一个快照显示未训练的模型；一旦留出集{score}连续 {count} 次评估都不低于 {level:g}%，训练就会停止…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="404"/>
        <source>Training {model} on {task}: the first snapshot shows the untrained model…</source>
        <translation>正在训练 {model}（任务：{task}）：第一个快照显示的是未训练的模型…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="569"/>
        <source>Training: {summary}</source>
        <translation>训练中：{summary}</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="125"/>
        <source>Transformer</source>
        <translation>Transformer</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="664"/>
        <source>Transformer decoder self-attention (causal: masked cells marked)</source>
        <translation>Transformer 解码器自注意力（因果掩蔽：被掩蔽的单元格已标出）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="662"/>
        <source>Transformer encoder self-attention, layer × head</source>
        <translation>Transformer 编码器自注意力，层 × 头</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="257"/>
        <source>Transformer encoder–decoder</source>
        <translation>Transformer 编码器－解码器</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="667"/>
        <source>Transformer encoder–decoder attention</source>
        <translation>Transformer 编码器－解码器注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="669"/>
        <source>Transformer: training curve</source>
        <translation>Transformer：训练曲线</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="129"/>
        <source>Transformers for Vision</source>
        <translation>用于视觉的 Transformer</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/compat.py" line="127"/>
        <source>transformers {version} has no {name}, which attnviz needs for {purpose}: opening Hugging Face models is unsupported with it (attnviz is tested with transformers {tested})</source>
        <translation>transformers {version} 没有 attnviz 用于{purpose}的 {name}：此版本不支持打开 Hugging Face 模型（attnviz 测试过的是 transformers {tested}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/compat.py" line="142"/>
        <source>transformers {version} is installed, but attnviz is tested with transformers {tested} only: opening Hugging Face models is unsupported with it</source>
        <translation>已安装的是 transformers {version}，而 attnviz 只在 transformers {tested} 上测试过：此版本不支持打开 Hugging Face 模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/translate.py" line="27"/>
        <source>translate --text, or stdin line by line</source>
        <translation>翻译 --text，或逐行翻译标准输入</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="264"/>
        <source>Translation models are trained on English–French sentence pairs from the Tatoeba Project (tatoeba.org, CC-BY 2.0 FR), packaged by manythings.org/anki.</source>
        <translation>翻译模型在 Tatoeba 项目（tatoeba.org，CC-BY 2.0 FR）的英语－法语句对上训练，句对由 manythings.org/anki 整理打包。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="181"/>
        <location filename="../../attnviz/gui/decoding_area.py" line="327"/>
        <source>Translation so far</source>
        <translation>目前的译文</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/image_tasks.py" line="29"/>
        <source>triangle</source>
        <translation>三角形</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/images.py" line="26"/>
        <source>Trouser</source>
        <translation>裤子</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="154"/>
        <location filename="../../attnviz/gallery.py" line="124"/>
        <location filename="../../attnviz/gui/panels/kernel.py" line="70"/>
        <source>true f(x) = 2 sin x + x^0.8</source>
        <translation>真实函数 f(x) = 2 sin x + x^0.8</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/eval.py" line="23"/>
        <source>TSV of english&lt;TAB&gt;french pairs</source>
        <translation>英语&lt;TAB&gt;法语 句对的 TSV 文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="34"/>
        <source>TSV of english&lt;TAB&gt;french pairs (required; kernel-regression takes none{others})</source>
        <translation>英语&lt;TAB&gt;法语句对的 TSV 文件（必需；kernel-regression 不需要{others}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/batch.py" line="35"/>
        <source>Two or more sentences, one per line, of different lengths</source>
        <translation>两个或更多长度不同的句子，每行一个</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/attention.py" line="275"/>
        <source>Type a sentence to see attention</source>
        <translation>输入一个句子以查看注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/computation.py" line="91"/>
        <source>Type a sentence to see the computation of a query.</source>
        <translation>输入一个句子以查看查询的计算过程。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_controls.py" line="185"/>
        <source>Type a source sentence, with a translation model loaded, to force target words.</source>
        <translation>加载翻译模型并输入源句子后，才能强制目标词。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="264"/>
        <source>Type an English sentence…</source>
        <translation>输入一个英语句子…</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/decoding.py" line="159"/>
        <source>Type the target words to force (a translation or its beginning).</source>
        <translation>请输入要强制的目标词（译文或其开头）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/base.py" line="140"/>
        <source>Unexpected error: {kind}: {error}</source>
        <translation>意外错误：{kind}：{error}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/errors.py" line="105"/>
        <source>Unexpected error: {kind}: {error}. attnviz keeps running.</source>
        <translation>意外错误：{kind}：{error}。attnviz 仍在运行。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="350"/>
        <source>uniform over 10 keys (log 10)</source>
        <translation>10 个键上的均匀分布（log 10）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="49"/>
        <source>unknown attention kind {kind!r}; use one of {kinds}</source>
        <translation>未知的注意力类型 {kind!r}；请使用 {kinds} 之一</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="143"/>
        <source>unknown book edition {text}; choose {choices} ({names})</source>
        <translation>未知的书籍版本 {text}；请选择 {choices}（{names}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/device.py" line="75"/>
        <source>unknown device {device!r}; use auto, cpu, cuda, cuda:N or mps</source>
        <translation>未知设备 {device!r}；请使用 auto、cpu、cuda、cuda:N 或 mps</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/figure_files.py" line="187"/>
        <source>unknown export format {format!r}; choose from {formats}</source>
        <translation>未知的导出格式 {format!r}；请从 {formats} 中选择</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kernel_regression.py" line="85"/>
        <source>unknown kernel {kernel!r}; choose one of {kernels}</source>
        <translation>未知的核 {kernel!r}；请从 {kernels} 中选择</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="339"/>
        <source>unknown model kind {name!r}; known: {known}</source>
        <translation>未知的模型类型 {name!r}；已知类型：{known}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/tasks.py" line="182"/>
        <location filename="../../attnviz/training/vision_tasks.py" line="215"/>
        <source>unknown task {name!r}; known: {known}</source>
        <translation>未知任务 {name!r}；已知任务：{known}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_controls.py" line="138"/>
        <source>Unknown words (read as &lt;unk&gt;): {words}</source>
        <translation>未知词（按 &lt;unk&gt; 读入）：{words}</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="13"/>
        <source>unrecognized arguments: %s</source>
        <translation>无法识别的参数：%s</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="575"/>
        <source>untrained: step {step:,} · agreement {agreement:.0f} %</source>
        <translation>未训练：第 {step:,} 步 · 对齐一致率 {agreement:.0f}%</translation>
    </message>
    <message>
        <location filename="../../attnviz/argparse_text.py" line="12"/>
        <source>usage: </source>
        <translation>用法：</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="72"/>
        <source>use only the validation split that training held out of --data (a TSV; rebuilt from the options stored in the checkpoint)</source>
        <translation>只用训练时从 --data 留出的验证集（TSV 文件；按检查点中保存的选项重建）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="70"/>
        <source>use the first N distinct source sentences</source>
        <translation>使用前 N 个不同的源句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/patch.py" line="58"/>
        <source>use the first N pairs</source>
        <translation>使用前 N 对</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/scoring.py" line="52"/>
        <location filename="../../attnviz/gui/panels/scoring.py" line="144"/>
        <source>valid length {length}</source>
        <translation>有效长度 {length}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="220"/>
        <location filename="../../attnviz/gallery.py" line="263"/>
        <location filename="../../attnviz/gallery.py" line="265"/>
        <source>valid length {n}</source>
        <translation>有效长度 {n}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/batch.py" line="103"/>
        <source>Valid length {valid} of {width}: keys {first}–{last} are &lt;pad&gt; (a decoder-only model pads on the left: every answer starts in the same column), masked before the softmax (weight exactly 0, grey). Same numbers as decoding it alone.</source>
        <translation>有效长度 {valid}（共 {width}）：键 {first}–{last} 为 &lt;pad&gt;（仅解码器模型在左侧填充：每个回答都从同一列开始），在 softmax 之前被掩蔽（权重恰为 0，灰色）。数值与单独解码时相同。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/batch.py" line="107"/>
        <source>Valid length {valid} of {width}: keys {first}–{last} are &lt;pad&gt;, masked before the softmax (weight exactly 0, grey). Same numbers as decoding it alone.</source>
        <translation>有效长度 {valid}（共 {width}）：键 {first}–{last} 为 &lt;pad&gt;，在 softmax 之前被掩蔽（权重恰为 0，灰色）。数值与单独解码时相同。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="231"/>
        <source>valid lengths {lengths}</source>
        <translation>有效长度 {lengths}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="433"/>
        <location filename="../../attnviz/gallery.py" line="431"/>
        <source>validation BLEU</source>
        <translation>验证集 BLEU</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="292"/>
        <source>value</source>
        <translation>值</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="41"/>
        <source>values: its values alone</source>
        <translation>values：仅其值</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/computation.py" line="83"/>
        <source>visible</source>
        <translation>可见</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="309"/>
        <source>Vision Transformer (ViT), classifying images by their patches</source>
        <translation>视觉 Transformer（ViT），根据图像块对图像分类</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="491"/>
        <source>ViT layer 1 self-attention over [CLS] and the 7 × 7 patches of {image} (heads averaged)</source>
        <translation>ViT 第 1 层在 [CLS] 和 {image} 的 7 × 7 个图块上的自注意力（各头平均）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="68"/>
        <source>Voita et al. 2019's confidence: mean largest weight over the keys other than the end of the source (a Hugging Face translator's `&lt;/s&gt;`; the source's last token, nearly always its final punctuation, for attnviz's own models, whose source has no end token); equals `confidence` where the keys hold no source (a Transformer's dec-self)</source>
        <translation>Voita 等 2019 的置信度：除源句末尾之外各键上最大权重的均值（Hugging Face 翻译模型为 `&lt;/s&gt;`；attnviz 自己的模型源句没有结束词元，取源句最后一个词元，几乎总是句末标点）；键中没有源句时（Transformer 的 dec-self）与 `confidence` 相同</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/computation.py" line="71"/>
        <source>W_k k_j: each key's projection</source>
        <translation>W_k k_j：每个键的投影</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/computation.py" line="69"/>
        <source>W_q q: the query's projection</source>
        <translation>W_q q：查询的投影</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/errors.py" line="20"/>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/editions.py" line="130"/>
        <source>Watching attention learn (tasks whose right alignment is known)</source>
        <translation>观察注意力的学习过程（对齐已知的任务）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="165"/>
        <location filename="../../attnviz/figures/panels.py" line="167"/>
        <location filename="../../attnviz/gui/panels/attention.py" line="356"/>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="224"/>
        <location filename="../../attnviz/core/columns.py" line="231"/>
        <source>weight (the attention weights) or norm (the norm view)</source>
        <translation>weight（注意力权重）或 norm（范数视角）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/head_grid.py" line="43"/>
        <source>weight {value:.4f}</source>
        <translation>权重 {value:.4f}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="203"/>
        <location filename="../../attnviz/gallery.py" line="265"/>
        <source>weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/scoring.py" line="67"/>
        <source>Weights after masked softmax</source>
        <translation>掩蔽 softmax 之后的权重</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="87"/>
        <source>what `rare` would be if each row's argmax fell on one of its keys at random: the mean share of a row's keys that are a least frequent source token; `n/a` for dec-self</source>
        <translation>若每行的最大值随机落在某个键上时 `rare` 的取值：一行的键中频率最低源词元所占比例的均值；dec-self 为 `n/a`</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="114"/>
        <source>What colours the heads</source>
        <translation>用什么给头着色</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="149"/>
        <source>What colours the heads: each head's mean share of the logit difference</source>
        <translation>头的着色依据：每个头在对数几率差（logit difference）中所占份额的均值</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="62"/>
        <source>What explains “{token}”: one overlay per method, each scaled to its largest value</source>
        <translation>是什么解释了“{token}”：每种方法一张叠加图，各按其最大值缩放</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/explain.py" line="43"/>
        <source>What explains “{token}”: one row per method, each scaled to its largest value</source>
        <translation>是什么解释了“{token}”：每种方法一行，各按其最大值缩放</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/patch.py" line="64"/>
        <source>what to compute, comma-separated: denoise, noise, pattern, values, atp, residual (default: all); each costs its own passes, so denoise alone is the quickest</source>
        <translation>要计算的量，以逗号分隔：denoise、noise、pattern、values、atp、residual（默认：全部）；每一种都有自己的前向传播开销，所以只算 denoise 最快</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/batch.py" line="44"/>
        <source>Which attention of the chosen sentence to show</source>
        <translation>显示所选句子的哪种注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/patch.py" line="47"/>
        <source>which heads carry a behaviour: patching every head over minimal pairs, with attribution patching beside it</source>
        <translation>哪些头承载一种行为：在最小对上修补每个头，并附上归因修补</translation>
    </message>
    <message>
        <location filename="../../attnviz/modern_gallery.py" line="97"/>
        <source>Which keys a query may read: full, sliding window, bidirectional window</source>
        <translation>查询能读到哪些键：完整、滑动窗口、双向窗口</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="699"/>
        <source>Why dot products are scaled by √d</source>
        <translation>为什么点积要除以 √d</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="351"/>
        <source>Why scale by √d: unscaled scores saturate the softmax as d grows</source>
        <translation>为何除以 √d：不缩放时，随着 d 增大评分会使 softmax 饱和</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="157"/>
        <source>Width</source>
        <translation>宽度</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="132"/>
        <source>Width of the model (num_hiddens)</source>
        <translation>模型的宽度（num_hiddens）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="82"/>
        <source>with --documents: tokens per forward pass (rows × the longest document; default 4096), halved when the device runs out of memory</source>
        <translation>与 --documents 一起使用：每次前向计算的词元数（行数 × 最长文档；默认 4096），设备内存不足时减半</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="103"/>
        <source>with `--task` only, cross only: the share of target tokens whose strongest attention falls on a source position they come from in the task's true alignment; `n/a` for the other kinds</source>
        <translation>仅用于 `--task`，仅 cross：最强注意力落在任务真实对齐中其来源位置上的目标词元所占比例；其他种类为 `n/a`</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/data.py" line="32"/>
        <source>with an empty side</source>
        <translation>有一侧为空</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/data.py" line="34"/>
        <source>with control characters or words over {chars} characters</source>
        <translation>含控制字符或超过 {chars} 个字符的词</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/data.py" line="32"/>
        <source>without a tab</source>
        <translation>没有制表符</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="535"/>
        <source>Words for the mask at this step</source>
        <translation>这一步掩蔽处的候选词</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/layout.py" line="537"/>
        <source>Words for the masks, first mask first…</source>
        <translation>要填入掩蔽的词，按掩蔽顺序…</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="135"/>
        <source>write each step's numbers with --format csv --step all instead of --flipbook, which needs no display</source>
        <translation>改用 --format csv --step all（不加 --flipbook）写出每一步的数值，这无需显示器</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="53"/>
        <source>write every attention map of a sentence as files, no window needed</source>
        <translation>将一个句子的所有注意力图写成文件，无需窗口</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="76"/>
        <source>write every step of one view as a multi-page PDF and an animated GIF (&lt;view&gt;_flipbook.pdf, &lt;view&gt;_flipbook.gif) instead of picture files per step</source>
        <translation>将一个视图的每一步写成多页 PDF 和 GIF 动画（&lt;view&gt;_flipbook.pdf、&lt;view&gt;_flipbook.gif），而不是每步一个图片文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/offscreen.py" line="26"/>
        <source>write the numbers alone with --format csv, which needs no display</source>
        <translation>用 --format csv 只写出数值，这无需显示器</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="227"/>
        <source>Write the trained model, with its history, as a checkpoint file</source>
        <translation>将训练好的模型连同其历史写成检查点文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/to_hf.py" line="16"/>
        <source>write the Transformer as a Hugging Face (Marian) model folder</source>
        <translation>将 Transformer 写成 Hugging Face（Marian）模型文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/convert.py" line="148"/>
        <source>writing a Hugging Face folder needs the transformers package, which the standalone build leaves out: install attnviz from source (README: bash scripts/run.sh)</source>
        <translation>写入 Hugging Face 文件夹需要 transformers 包，而独立构建版不含此包：请从源码安装 attnviz（README：bash scripts/run.sh）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="334"/>
        <source>Writing {count} files into {folder}…</source>
        <translation>正在将 {count} 个文件写入 {folder}…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="279"/>
        <source>Writing {name}…</source>
        <translation>正在写入 {name}…</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="209"/>
        <location filename="../../attnviz/commands/export.py" line="319"/>
        <location filename="../../attnviz/commands/export.py" line="434"/>
        <source>wrote {count} files into {out}</source>
        <translation>已将 {count} 个文件写入 {out}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads_images.py" line="77"/>
        <source>wrote {count} files into {out}: {heads} heads over {images:,} images in {seconds:.0f} s</source>
        <translation>已将 {count} 个文件写入 {out}：{heads} 个头，{images:,} 张图像，用时 {seconds:.0f} 秒</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/patch.py" line="166"/>
        <source>wrote {count} files into {out}: {heads} heads over {pairs:,} pairs in {seconds:.0f} s</source>
        <translation>已将 {count} 个文件写入 {out}：{heads} 个头、{pairs:,} 对，用时 {seconds:.0f} 秒</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="360"/>
        <source>wrote {count} files into {out}: {heads} heads over {sentences:,} documents ({tokens:,} tokens) in {seconds:.0f} s</source>
        <translation>已向 {out} 写入 {count} 个文件：{heads} 个头，{sentences:,} 篇文档（{tokens:,} 个词元），用时 {seconds:.0f} 秒</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="278"/>
        <source>wrote {count} files into {out}: {heads} heads over {sentences:,} sentences in {seconds:.0f} s{summary}</source>
        <translation>已将 {count} 个文件写入 {out}：{heads} 个头，{sentences:,} 个句子，用时 {seconds:.0f} 秒{summary}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/figures.py" line="73"/>
        <source>wrote {figures} figures ({files} files) into {out}; open {index}</source>
        <translation>已将 {figures} 张图（{files} 个文件）写入 {out}；请打开 {index}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/to_hf.py" line="39"/>
        <source>wrote {out}: a Hugging Face Marian model and its tokenizer (transformers: MarianMTModel.from_pretrained; attnviz --checkpoint {out})</source>
        <translation>已写入 {out}：Hugging Face Marian 模型及其分词器（transformers：MarianMTModel.from_pretrained；attnviz --checkpoint {out}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="111"/>
        <source>wrote {out}: learned w={w:.3f}, loss {before:.2f} -&gt; {after:.2f}</source>
        <translation>已写入 {out}：学到的 w={w:.3f}，损失 {before:.2f} -&gt; {after:.2f}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="180"/>
        <source>wrote {out}: masked-word accuracy {accuracy:.1%}; one content word top-1 {top1:.1%}, top-5 {top5:.1%} on the held-out sentences</source>
        <translation>已写入 {out}：掩蔽词准确率 {accuracy:.1%}；留出句子中遮住一个实词时，前 1 命中 {top1:.1%}，前 5 命中 {top5:.1%}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="124"/>
        <source>wrote {out}: training BLEU {bleu:.2f} (too few sentences for a validation split) after {minutes} min</source>
        <translation>已写入 {out}：训练 {minutes} 分钟，训练集 BLEU {bleu:.2f}（句子太少，未划分验证集）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train_images.py" line="50"/>
        <source>wrote {out}: validation accuracy {accuracy:.2f} % after {minutes} min</source>
        <translation>已写入 {out}：验证准确率 {accuracy:.2f} %，用时 {minutes} 分钟</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="127"/>
        <source>wrote {out}: validation BLEU {bleu:.2f} after {minutes} min</source>
        <translation>已写入 {out}：训练 {minutes} 分钟，验证集 BLEU {bleu:.2f}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="271"/>
        <source>wrote {out}{stopped}: exact match {score:.1f} %, alignment agreement {agreement:.0f} % after {steps:,} steps ({minutes} min)</source>
        <translation>已写入 {out}{stopped}：{steps:,} 步（{minutes} 分钟）后完全匹配率 {score:.1f}%，对齐一致率 {agreement:.0f}%</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="266"/>
        <source>wrote {out}{stopped}: {score} {value:.1f} %, [CLS] attention on the right patches {agreement:.0f} % (top-k overlap {overlap:.0f} %) after {steps:,} steps ({minutes} min)</source>
        <translation>已写入 {out}{stopped}：{score} {value:.1f} %，[CLS] 落在正确图像块上的注意力 {agreement:.0f} %（top-k 重合率 {overlap:.0f} %），共 {steps:,} 步（{minutes} 分钟）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/columns.py" line="102"/>
        <source>yes when `positional_share` ≥ 0.9: Voita et al. 2019's positional head</source>
        <translation>`positional_share` ≥ 0.9 时为 yes：Voita 等 2019 的位置头</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="47"/>
        <source>your own file (TSV)…</source>
        <translation>你自己的文件（TSV）…</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/load.py" line="217"/>
        <source>{amount:,.1f} {unit}</source>
        <translation>{amount:,.1f} {unit}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/positional.py" line="106"/>
        <source>{architecture} adds a fixed sinusoidal table to the embeddings (sines in the first half of the dimensions, cosines in the second: the book's interleaved columns, reordered).</source>
        <translation>{architecture} 将一张固定的正弦表加到嵌入上（前一半维度为正弦，后一半为余弦：即书中交错排列的列，重新排序）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/positional.py" line="95"/>
        <source>{architecture} adds a learned table, one vector per position (wpe), to the token embeddings.</source>
        <translation>{architecture} 将一张学习得到的表（每个位置一个向量，即 wpe）加到词元嵌入上。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/positional.py" line="111"/>
        <source>{architecture} adds a learned table, one vector per position, to the embeddings (the encoder's is shown; the decoder has its own).</source>
        <translation>{architecture} 将一张学习得到的表（每个位置一个向量）加到嵌入上（显示的是编码器的表；解码器有自己的表）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/positional.py" line="100"/>
        <source>{architecture} adds a learned table, one vector per position, to the token embeddings (position 0 is its row {offset}, after the padding id; the rows before it are not drawn).</source>
        <translation>{architecture} 将一张学习得到的表（每个位置一个向量）加到词元嵌入上（位置 0 是表的第 {offset} 行，在填充 id 之后；之前的行不画出）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/positional.py" line="99"/>
        <source>{architecture} adds a learned table, one vector per position, to the token embeddings.</source>
        <translation>{architecture} 将一张学习得到的表（每个位置一个向量）加到词元嵌入上。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/positional.py" line="61"/>
        <source>{architecture} adds a learned vector per position to its inputs' embeddings — its special tokens' first, then each patch's, row by row (a table of {rows} rows).</source>
        <translation>{architecture} 为每个位置学一个向量，加到输入的嵌入上——先是特殊词元的，然后逐行是每个图块的（一张 {rows} 行的表）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/positional.py" line="143"/>
        <source>{architecture} adds no position vectors: each head adds a learned number to the score of every query–key pair, chosen by their distance (one of {buckets} buckets: exact when near, logarithmic when far; the encoder's is drawn, the decoder has its own).</source>
        <translation>{architecture} 不添加位置向量：每个头为每一对查询–键的评分加上一个学习得到的数，按两者的距离选取（{buckets} 个桶之一：距离近时精确，远时按对数划分；绘制的是编码器的，解码器有自己的）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/positional.py" line="81"/>
        <source>{architecture} adds no positional encoding: RoPE rotates each query and key by its position (pair i of a {width}-wide head turns by m·θ_i, θ_i = base^(−2i/d), base {base:,.0f}), so q·k depends only on how far apart they are.</source>
        <translation>{architecture} 不添加位置编码：RoPE 按位置旋转每个查询和键（宽 {width} 的头中，第 i 对旋转 m·θ_i，θ_i = base^(−2i/d)，base 为 {base:,.0f}），因此 q·k 只取决于两者相距多远。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/positional.py" line="85"/>
        <source>{architecture} adds no positional encoding: RoPE rotates each query and key by its position (pair i of a {width}-wide head turns by m·θ_i, θ_i = base^(−2i/d), base {base:,.0f}, {scaling} scaling), so q·k depends only on how far apart they are.</source>
        <translation>{architecture} 不添加位置编码：RoPE 按位置旋转每个查询和键（宽 {width} 的头中，第 i 对旋转 m·θ_i，θ_i = base^(−2i/d)，base 为 {base:,.0f}，{scaling} 缩放），因此 q·k 只取决于两者相距多远。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/heatmap_zoom.py" line="87"/>
        <source>{axis} {first:,}–{last:,} of {count:,}</source>
        <translation>{axis} {first:,}–{last:,}（共 {count:,}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/modern_gallery.py" line="147"/>
        <source>{cap:g}·tanh(s / {cap:g})</source>
        <translation>{cap:g}·tanh(s / {cap:g})</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="517"/>
        <source>{checkpoint} has no training history (train it with attnviz train --task, the Train dock, or attnviz train kernel-regression)</source>
        <translation>{checkpoint} 没有训练历史（请用 attnviz train --task、训练面板或 attnviz train kernel-regression 训练它）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export_images.py" line="28"/>
        <source>{checkpoint} is an image model: give the image to read with --image</source>
        <translation>{checkpoint} 是图像模型：请用 --image 给出要读取的图像</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="322"/>
        <source>{checkpoint} reads images: give a folder of images as --data</source>
        <translation>{checkpoint} 读取图像：请用 --data 给出一个图像文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="308"/>
        <source>{checkpoint}: --documents reads a Hugging Face language model (decoder-only or encoder-only), not a {kind} model</source>
        <translation>{checkpoint}：--documents 读取 Hugging Face 语言模型（仅解码器或仅编码器），而不是 {kind} 模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="200"/>
        <location filename="../../attnviz/commands/shared.py" line="127"/>
        <source>{checkpoint}: a {kind} checkpoint does not translate</source>
        <translation>{checkpoint}：{kind} 检查点不做翻译</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/classify.py" line="41"/>
        <source>{checkpoint}: a {kind} model does not classify images (give an image model, e.g. models/vit.safetensors)</source>
        <translation>{checkpoint}：{kind} 模型不对图像分类（请给出图像模型，例如 models/vit.safetensors）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/fill_mask.py" line="35"/>
        <source>{checkpoint}: a {kind} model does not fill masks (open an encoder-only model: BERT, DistilBERT, RoBERTa, ModernBERT or attnviz's own)</source>
        <translation>{checkpoint}：{kind} 模型不会填补掩蔽（请打开仅编码器模型：BERT、DistilBERT、RoBERTa、ModernBERT 或 attnviz 自带的）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="325"/>
        <source>{checkpoint}: explanations cover attnviz's own models (Transformer, decoder-only, RNN, the small BERT) and Hugging Face decoder-only folders, not a {kind} model</source>
        <translation>{checkpoint}：解释只适用于 attnviz 自己的模型（Transformer、仅解码器、RNN、小型 BERT）和 Hugging Face 仅解码器模型文件夹，不适用于 {kind} 模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/eval.py" line="48"/>
        <location filename="../../attnviz/commands/explain.py" line="98"/>
        <source>{checkpoint}: no training options stored; --heldout needs them</source>
        <translation>{checkpoint}：未保存训练选项；--heldout 需要它们</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/classify.py" line="46"/>
        <source>{checkpoint}: {name} has no classifier head, so it names no classes (attnviz heads --data shows its attention over a folder of images)</source>
        <translation>{checkpoint}：{name} 没有分类头，因此不给出类别（attnviz heads --data 可显示它在一个图像文件夹上的注意力）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/live.py" line="48"/>
        <source>{clean!r} reads as {count} tokens and {corrupt!r} as {other}: a head is patched position by position, so both sides must read as the same number of tokens</source>
        <translation>{clean!r} 读作 {count} 个词元，{corrupt!r} 读作 {other} 个：头是逐个位置修补的，所以两侧必须读作相同数量的词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="308"/>
        <source>{clean} → {corrupt} ({answer}/{alternative})</source>
        <translation>{clean} → {corrupt}（{answer}/{alternative}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/load.py" line="214"/>
        <source>{count:,} bytes</source>
        <translation>{count:,} 字节</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="341"/>
        <source>{count:,} documents were longer than the model's {most:,} positions and were cut</source>
        <translation>{count:,} 篇文档超过模型的 {most:,} 个位置，已被截断</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/load.py" line="224"/>
        <source>{count:,} numbers</source>
        <translation>{count:,} 个数值</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/patch.py" line="143"/>
        <source>{count:,} of {total:,} pairs were left out: the model gives them no step to read</source>
        <translation>{total:,} 对中有 {count:,} 对被略去：模型没有给它们可读取的步骤</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/heads.py" line="248"/>
        <source>{count:,} sentences were longer than the model's limit of {most} tokens and were truncated</source>
        <translation>{count:,} 个句子超过模型 {most} 个词元的上限，已截断</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/data.py" line="86"/>
        <source>{count:,} {reason}</source>
        <translation>{count:,} 行{reason}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="349"/>
        <source>{count} file(s) in {folder} already exist and would be replaced:

{names}</source>
        <translation>{folder} 中已有 {count} 个文件，将被替换：

{names}</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/figure_files.py" line="369"/>
        <source>{count} file(s) in {folder} would be replaced, e.g. {name}</source>
        <translation>{folder} 中的 {count} 个文件将被替换，例如 {name}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/shared.py" line="315"/>
        <source>{count} file(s) in {folder} would be replaced, e.g. {name}; add --force to replace them</source>
        <translation>{folder} 中将有 {count} 个文件被替换，例如 {name}；加上 --force 才会替换</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/flipbook.py" line="346"/>
        <source>{count} file(s) would be replaced, e.g. {path}</source>
        <translation>{count} 个文件将被替换，例如 {path}</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/flipbook.py" line="50"/>
        <source>{count} million pixels</source>
        <translation>{count} 百万像素</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="42"/>
        <source>{count} snapshots</source>
        <translation>{count} 个快照</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="42"/>
        <source>{count} steps</source>
        <translation>{count} 步</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain_images.py" line="86"/>
        <location filename="../../attnviz/commands/heads_images.py" line="57"/>
        <source>{data} is a folder of images: give an image model with --checkpoint (e.g. models/vit.safetensors), not a {kind} model</source>
        <translation>{data} 是一个图像文件夹：请用 --checkpoint 给出图像模型（例如 models/vit.safetensors），而不是 {kind} 模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/progress.py" line="80"/>
        <source>{done:,} of {total:,}</source>
        <translation>{done:,}/{total:,}</translation>
    </message>
    <message>
        <location filename="../../attnviz/progress.py" line="79"/>
        <source>{done:,} of {total:,} {unit}</source>
        <translation>{done:,}/{total:,} {unit}</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/loading.py" line="36"/>
        <source>{error}. Using {device} instead.</source>
        <translation>{error}。改用 {device}。</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="486"/>
        <location filename="../../attnviz/commands/shared.py" line="330"/>
        <location filename="../../attnviz/commands/shared.py" line="345"/>
        <source>{error}; add --force to replace them</source>
        <translation>{error}；加上 --force 可替换它们</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/export_actions.py" line="418"/>
        <source>{first} and {second}</source>
        <translation>{first} 和 {second}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/fashion_mnist.py" line="58"/>
        <source>{folder} has no Fashion-MNIST file {name} (nor {name}.gz)</source>
        <translation>{folder} 中没有 Fashion-MNIST 文件 {name}（也没有 {name}.gz）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/safe_output.py" line="74"/>
        <source>{folder} is a kernel interface ({kind}), not a folder on disk; choose a folder of your own</source>
        <translation>{folder} 是内核接口（{kind}），不是磁盘上的文件夹；请选择你自己的文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/fashion_mnist.py" line="100"/>
        <source>{folder} is not a folder (give the one with the four Fashion-MNIST files)</source>
        <translation>{folder} 不是文件夹（请给出存放四个 Fashion-MNIST 文件的文件夹）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/safe_output.py" line="96"/>
        <location filename="../../attnviz/core/safe_output.py" line="117"/>
        <source>{folder} is {kind}, not a folder</source>
        <translation>{folder} 是{kind}，不是文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/image_atlas.py" line="44"/>
        <source>{folder}: cannot be listed ({error})</source>
        <translation>{folder}：无法列出其内容（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain_images.py" line="82"/>
        <location filename="../../attnviz/core/heads/image_atlas.py" line="47"/>
        <source>{folder}: no images in it (PNG, JPEG, WebP, BMP or GIF files)</source>
        <translation>{folder}：其中没有图像（PNG、JPEG、WebP、BMP 或 GIF 文件）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="291"/>
        <source>{formula}; a learned sink logit {logit:.3f} takes {share:.1%} of the row</source>
        <translation>{formula}；学到的汇聚对数几率 {logit:.3f} 占该行的 {share:.1%}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="286"/>
        <source>{formula}; window: {band}</source>
        <translation>{formula}；窗口：{band}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/book_dialog.py" line="125"/>
        <source>{heading} — {caption} (file {key})</source>
        <translation>{heading} — {caption}（文件 {key}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="435"/>
        <source>{head} · clean</source>
        <translation>{head} · 干净</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="439"/>
        <source>{head} · clean − corrupt</source>
        <translation>{head} · 干净 − 损坏</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="437"/>
        <source>{head} · corrupt</source>
        <translation>{head} · 损坏</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/bleu.py" line="28"/>
        <location filename="../../attnviz/core/learning/bleu.py" line="49"/>
        <source>{hypotheses} hypotheses but {references} reference lists</source>
        <translation>{hypotheses} 个候选译文，但有 {references} 组参考译文</translation>
    </message>
    <message>
        <location filename="../../attnviz/progress.py" line="30"/>
        <source>{h} h {m:02d} min</source>
        <translation>{h} 小时 {m:02d} 分</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/fashion_mnist.py" line="107"/>
        <source>{images} holds {count:,} images but {labels} {label_count:,} labels</source>
        <translation>{images} 含 {count:,} 张图像，而 {labels} 含 {label_count:,} 个标签</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/images.py" line="117"/>
        <source>{image} is no longer there: showing a sample image instead</source>
        <translation>{image} 已不在原处：改为显示一张示例图像</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="126"/>
        <source>{image}: {what} of {query}, layer {layer}, {head} ({specials:.0%} on positions off the image)</source>
        <translation>{image}：{query} 的{what}，第 {layer} 层，{head}（{specials:.0%} 在图像之外的位置上）</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="219"/>
        <source>{key!r} has the wrong type ({type})</source>
        <translation>{key!r} 的类型错误（{type}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="299"/>
        <source>{key!r} is not a file path</source>
        <translation>{key!r} 不是文件路径</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="302"/>
        <source>{key!r} is too long to be a file path ({count:,} characters)</source>
        <translation>{key!r} 太长，不能作为文件路径（{count:,} 个字符）</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="216"/>
        <source>{key!r} must be a {type}, not true/false</source>
        <translation>{key!r} 必须是 {type}，而不是 true/false</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="226"/>
        <source>{key!r} must be from {low} to {high}, got {value}</source>
        <translation>{key!r} 必须在 {low} 到 {high} 之间，实际为 {value}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/live.py" line="206"/>
        <source>{kind} cannot be trained here; choose one of {kinds}</source>
        <translation>无法在此训练 {kind}；请从 {kinds} 中选择</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/kinds.py" line="386"/>
        <source>{kind} cannot be trained on a task; choose one of {kinds}</source>
        <translation>{kind} 不能在生成的任务上训练；请从 {kinds} 中选择</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/stepping.py" line="239"/>
        <location filename="../../attnviz/core/decoding/stepping.py" line="77"/>
        <source>{kind} is not a translation model</source>
        <translation>{kind} 不是翻译模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="133"/>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="149"/>
        <source>{kind} is not a translation model: it has no attention queries to show</source>
        <translation>{kind} 不是翻译模型：没有可显示的注意力查询</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/beam_tree.py" line="81"/>
        <source>{kind} of “{hypothesis}” (last layer, heads averaged)</source>
        <translation>{kind}（最后一层，各头平均）：“{hypothesis}”</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="249"/>
        <source>{kind} on {task}: {parameters:,} parameters, {epochs} epochs of {steps} steps; Ctrl-C stops and saves</source>
        <translation>{kind} 在 {task} 上训练：{parameters:,} 个参数，{epochs} 个迭代周期，每个迭代周期 {steps} 步；Ctrl-C 停止并保存</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="94"/>
        <source>{kind} PE: {positions} positions × {width} dims</source>
        <translation>{kind}位置编码：{positions} 个位置 × {width} 维</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="455"/>
        <source>{kind} {layer}.{head} · {measure} {mean:.2f} [{low:.2f}, {high:.2f}] over {count:,} pairs</source>
        <translation>{kind} {layer}.{head} · {measure} {mean:.2f} [{low:.2f}, {high:.2f}]，基于 {count:,} 个最小对</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/computation.py" line="98"/>
        <source>{kind} · layer {layer} · head {head} · query {query} ({token!r})</source>
        <translation>{kind} · 第 {layer} 层 · 第 {head} 个头 · 查询 {query}（{token!r}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="438"/>
        <source>{kind}, {which}</source>
        <translation>{kind}，{which}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/vision.py" line="157"/>
        <source>{kind}: {train:,} training images, {val:,} validation images; {parameters:,} parameters; device {device}</source>
        <translation>{kind}：{train:,} 张训练图像，{val:,} 张验证图像；{parameters:,} 个参数；设备 {device}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/train.py" line="141"/>
        <source>{kind}: {train:,} training pairs, {val:,} validation pairs; vocab {src:,} en / {tgt:,} fr; {parameters:,} parameters; device {device}</source>
        <translation>{kind}：{train:,} 个训练句对，{val:,} 个验证句对；词表：英语 {src:,}，法语 {tgt:,}；{parameters:,} 个参数；设备 {device}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/train.py" line="67"/>
        <source>{label} [{bar}] {done}/{total} loss {loss:.3f}  {rate:,.0f} tok/s  ETA {eta:.1f} min</source>
        <translation>{label} [{bar}] {done}/{total} 损失 {loss:.3f}  {rate:,.0f} 词元/秒  预计剩余 {eta:.1f} 分钟</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_controls.py" line="36"/>
        <source>{label} · forced</source>
        <translation>{label} · 强制</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/head_grid.py" line="240"/>
        <source>{layer} · {head} · query {query} → key {key}: {value}</source>
        <translation>{layer} · {head} · 查询 {query} → 键 {key}：{value}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="588"/>
        <source>{learner} learning to {task}: its attention finds {alignment}</source>
        <translation>{learner} 学习{task}：其注意力找到了{alignment}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="587"/>
        <source>{learner} learning to {task}: its attention finds {alignment} (its best-aligned head: {head})</source>
        <translation>{learner} 学习{task}：其注意力找到了{alignment}（对齐最好的头：{head}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/corpus.py" line="55"/>
        <location filename="../../attnviz/core/safe_output.py" line="131"/>
        <source>{link} is a symbolic link to {target}, which does not exist</source>
        <translation>{link} 是指向 {target} 的符号链接，而该目标不存在</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/base.py" line="141"/>
        <source>{message}. {then}</source>
        <translation>{message}。{then}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/load.py" line="225"/>
        <source>{millions:,.1f} million numbers</source>
        <translation>{millions:,.1f} 百万个数值</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="42"/>
        <source>{minutes:.1f} min</source>
        <translation>{minutes:.1f} 分钟</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/compare.py" line="76"/>
        <source>{model} (source view, renormalised)</source>
        <translation>{model}（源视图，重新归一化）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="170"/>
        <source>{model} ({kind}), {which}: share on the first position</source>
        <translation>{model}（{kind}），{which}：第一个位置上的份额</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="139"/>
        <source>{model} ({kind}): {statistic}</source>
        <translation>{model}（{kind}）：{statistic}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/long_prompt.py" line="47"/>
        <location filename="../../attnviz/core/hf/seq2seq.py" line="138"/>
        <source>{model} adds a relative position bias to its scores: its maps are not computed on demand</source>
        <translation>{model} 在评分上加了相对位置偏置：它的图不能按需计算</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/compare.py" line="172"/>
        <source>{model} by itself: {translation}</source>
        <translation>{model} 单独翻译：{translation}</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/compare.py" line="58"/>
        <source>{model} followed the final translation: the hypothesis on show at this search step is not the start of the final translation</source>
        <translation>{model} 沿用了最终译文：此搜索步显示的候选序列不是最终译文的开头</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/images.py" line="64"/>
        <source>{model} reads sentences, not images: open an image model first (File ▸ Open, e.g. models/vit.safetensors)</source>
        <translation>{model} 读取的是句子，不是图像：请先打开一个图像模型（文件 ▸ 打开，例如 models/vit.safetensors）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/compare.py" line="53"/>
        <source>{model} stops at {words} words (its length limit)</source>
        <translation>{model} 在 {words} 个词处停止（其长度上限）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/batch.py" line="97"/>
        <source>{model} · sentence {number}</source>
        <translation>{model} · 句子 {number}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="186"/>
        <location filename="../../attnviz/commands/export.py" line="302"/>
        <location filename="../../attnviz/commands/export_images.py" line="45"/>
        <source>{model}, heads off {heads}</source>
        <translation>{model}，已关闭的头 {heads}</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/state.py" line="80"/>
        <source>{model}, heads patched {heads}</source>
        <translation>{model}，已修补的头 {heads}</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/patching.py" line="54"/>
        <source>{model}: attribution patching against patching, Kendall τ {tau:.2f} [{low:.2f}, {high:.2f}]</source>
        <translation>{model}：归因修补对比修补，Kendall τ {tau:.2f} [{low:.2f}, {high:.2f}]</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="432"/>
        <source>{model}: BLEU per epoch (no loss was recorded)</source>
        <translation>{model}：每个迭代周期的 BLEU（未记录损失）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="56"/>
        <source>{model}: BLEU with heads pruned ({count:,} sentences)</source>
        <translation>{model}：剪去头后的 BLEU（{count:,} 个句子）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/compare.py" line="56"/>
        <source>{model}: decoding…</source>
        <translation>{model}：正在解码…</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="475"/>
        <source>{model}: its training history cannot be shown ({error}).</source>
        <translation>{model}：无法显示其训练历史（{error}）。</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="275"/>
        <source>{model}: mean attention distance by layer, {count:,} images</source>
        <translation>{model}：逐层平均注意力距离，{count:,} 张图像</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="79"/>
        <source>{model}: normalised importance of each head (each layer's ℓ2 norm 1; the pruning order)</source>
        <translation>{model}：每个头的归一化重要性（每层 ℓ2 范数为 1；剪枝顺序依据）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="81"/>
        <source>{model}: raw importance of each head (target: {target}; the pruning order uses the normalised one)</source>
        <translation>{model}：每个头的原始重要性（目标：{target}；剪枝顺序用归一化后的值）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="488"/>
        <source>{model}: trained on {task} ({count} snapshots); scrub the history below.</source>
        <translation>{model}：在 {task} 上训练（{count} 个快照）；可拖动下方的历史回看。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/train.py" line="485"/>
        <source>{model}: trained on {task} ({count} snapshots; {why}); scrub the history below.</source>
        <translation>{model}：在 {task} 上训练（{count} 个快照；{why}）；可拖动下方的历史回看。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="427"/>
        <source>{model}: training loss per epoch</source>
        <translation>{model}：每个迭代周期的训练损失</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/patching.py" line="40"/>
        <source>{model}: {measure}, {count:,} pairs</source>
        <translation>{model}：{measure}，{count:,} 对</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/patching.py" line="409"/>
        <source>{model}: {measure}, {source}, {count:,} pairs</source>
        <translation>{model}：{measure}，{source}，{count:,} 个最小对</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="213"/>
        <source>{model}: {rows} × {cols} patches, {top}</source>
        <translation>{model}：{rows} × {cols} 个图像块，{top}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="419"/>
        <source>{model}: {statistic}, {count:,} documents</source>
        <translation>{model}：{statistic}，{count:,} 篇文档</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="261"/>
        <source>{model}: {statistic}, {count:,} images</source>
        <translation>{model}：{statistic}，{count:,} 张图像</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="45"/>
        <location filename="../../attnviz/gui/panels/heads.py" line="420"/>
        <source>{model}: {statistic}, {count:,} sentences</source>
        <translation>{model}：{statistic}，{count:,} 个句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/progress.py" line="29"/>
        <source>{m} min {s:02d} s</source>
        <translation>{m} 分 {s:02d} 秒</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/guard.py" line="101"/>
        <source>{names} and {count:,} more</source>
        <translation>{names} 以及另外 {count:,} 个</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/heads.py" line="643"/>
        <source>{name} (documents)</source>
        <translation>{name}（文档）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/limits.py" line="183"/>
        <source>{name} = {value} is outside {low:g}..{high:g}</source>
        <translation>{name} = {value} 超出范围 {low:g}..{high:g}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/limits.py" line="177"/>
        <source>{name} = {value} is outside {low}..{high}</source>
        <translation>{name} = {value} 超出范围 {low}..{high}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/models/image_reading.py" line="178"/>
        <source>{name} has no classifier head: it names no classes (attnviz heads and the window show its attention)</source>
        <translation>{name} 没有分类头：它不给出类别（attnviz heads 和窗口可显示它的注意力）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/encoder.py" line="283"/>
        <source>{name} holds the bare {model} without a masked-language-model head: attnviz shows its attention, but it cannot fill a mask (open a {masked} folder for that)</source>
        <translation>{name} 只有不带掩码语言模型头的 {model}：attnviz 显示它的注意力，但它不能填充掩码（要填充掩码，请打开 {masked} 文件夹）</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="168"/>
        <source>{name} is a folder, not a session file</source>
        <translation>{name} 是文件夹，不是会话文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/panels.py" line="153"/>
        <source>{name} is a {kind} model and the model on show a {shown} model: Compare puts two models that translate, or two that fill masks, side by side</source>
        <translation>{name} 是 {kind} 模型，而当前显示的是 {shown} 模型：“比较”只把两个翻译模型，或两个填充掩蔽词元的模型并排放在一起</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/images.py" line="246"/>
        <source>{name} is a {kind} model, which reads sentences: Compare puts a second image model beside this one</source>
        <translation>{name} 是 {kind} 模型，读取的是句子：“比较”只能把第二个图像模型放在这个模型旁边</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/convert.py" line="142"/>
        <source>{name} is a {kind} model: only attnviz's Transformer converts to a Hugging Face (Marian) folder</source>
        <translation>{name} 是 {kind} 模型：只有 attnviz 的 Transformer 能转换为 Hugging Face（Marian）文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/panels.py" line="146"/>
        <source>{name} is a {kind} model: only translation models compare</source>
        <translation>{name} 是 {kind} 模型：只有翻译模型可以比较</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="170"/>
        <source>{name} is not a regular file</source>
        <translation>{name} 不是普通文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="187"/>
        <source>{name} is not a usable file name</source>
        <translation>{name} 不是可用的文件名</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="191"/>
        <source>{name} is not an attnviz session (not JSON: {error})</source>
        <translation>{name} 不是 attnviz 会话（不是 JSON：{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="182"/>
        <source>{name} is not an attnviz session (not UTF-8 text)</source>
        <translation>{name} 不是 attnviz 会话（不是 UTF-8 文本）</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="174"/>
        <source>{name} is too large to be an attnviz session (over {most:,} bytes)</source>
        <translation>{name} 太大，不可能是 attnviz 会话（超过 {most:,} 字节）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/limits.py" line="181"/>
        <source>{name} must be a finite number, not {value!r}</source>
        <translation>{name} 必须是有限的数，而不是 {value!r}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/limits.py" line="190"/>
        <source>{name} must be a short text</source>
        <translation>{name} 必须是简短的文本</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/limits.py" line="175"/>
        <source>{name} must be a whole number, not {value!r}</source>
        <translation>{name} 必须是整数，而不是 {value!r}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/limits.py" line="168"/>
        <location filename="../../attnviz/core/limits.py" line="188"/>
        <source>{name} must be one of {choices}, not {value!r}</source>
        <translation>{name} 必须是 {choices} 之一，而不是 {value!r}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/limits.py" line="171"/>
        <source>{name} must be true or false, not {value!r}</source>
        <translation>{name} 必须是 true 或 false，而不是 {value!r}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/encoder.py" line="205"/>
        <source>{name} reads one sentence at a time (it has no segment embedding for a second): leave out {sep}</source>
        <translation>{name} 一次只读一个句子（它没有第二个句子的片段嵌入）：请去掉 {sep}</translation>
    </message>
    <message>
        <location filename="../../attnviz/session/loading.py" line="56"/>
        <source>{name} splits text into other tokens than the model on show: Compare puts two models' attention over the same tokens side by side, so it needs two models with one tokenizer (attnviz's own models share theirs; a Hugging Face model compares with one of its family that uses its tokenizer)</source>
        <translation>{name} 切分出的词元与当前显示的模型不同：比较会把两个模型在相同词元上的注意力并排显示，因此需要两个使用同一分词器的模型（attnviz 自带的模型共用分词器；Hugging Face 模型可与同系列、使用其分词器的模型比较）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/menus.py" line="95"/>
        <source>{name} — {about}</source>
        <translation>{name} — {about}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/live.py" line="141"/>
        <source>{name}: cannot be read ({error})</source>
        <translation>{name}：无法读取（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/live.py" line="145"/>
        <source>{name}: no usable source&lt;TAB&gt;target pairs (lines skipped: {skipped})</source>
        <translation>{name}：没有可用的 源&lt;TAB&gt;目标 句对（跳过的行：{skipped}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/live.py" line="147"/>
        <source>{name}: no usable source&lt;TAB&gt;target pairs (the file has no lines)</source>
        <translation>{name}：没有可用的 源&lt;TAB&gt;目标 句对（文件中没有任何行）</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/train.py" line="128"/>
        <source>{name}: the model cannot be built from this data: {problem}</source>
        <translation>{name}：无法用这份数据构建模型：{problem}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/vision.py" line="173"/>
        <source>{name}: the model read {count} positions, not the {expected} its special tokens and patches make</source>
        <translation>{name}：模型读取了 {count} 个位置，而不是其特殊词元与图块构成的 {expected} 个</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/figure_files.py" line="172"/>
        <source>{name}: the numbers of a line plot are exported as CSV, not NPY</source>
        <translation>{name}：折线图的数值导出为 CSV，而不是 NPY</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/figure_files.py" line="173"/>
        <source>{name}: the numbers of a tree are exported as CSV, not NPY</source>
        <translation>{name}：树的数值导出为 CSV，而不是 NPY</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/figure_files.py" line="216"/>
        <source>{name}: unknown export format {format!r}; choose from {formats}</source>
        <translation>{name}：未知的导出格式 {format!r}；请从 {formats} 中选择</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/compare.py" line="32"/>
        <source>{name}: {what}, last layer, heads averaged</source>
        <translation>{name}：{what}，最后一层，各头平均</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="59"/>
        <source>{n} IG steps</source>
        <translation>积分梯度 {n} 步</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="132"/>
        <source>{option} chooses the view of --flipbook; add --flipbook</source>
        <translation>{option} 用于选择 --flipbook 的视图；请加上 --flipbook</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="129"/>
        <source>{option} does not go with --flipbook (it writes every step as one PDF and one GIF)</source>
        <translation>{option} 不能与 --flipbook 同用（它把每一步写成一个 PDF 和一个 GIF）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="226"/>
        <source>{option} does not go with --prompt-map (one map of a prompt, computed on demand)</source>
        <translation>{option} 不能与 --prompt-map 同用（它按需计算提示的一张图）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="208"/>
        <source>{option} does not go with --task (the task's data is generated)</source>
        <translation>{option} 不能与 --task 同用（任务的数据是生成的）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="164"/>
        <source>{option} does not go with --task {task}</source>
        <translation>{option} 不能与 --task {task} 同用</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="511"/>
        <source>{option} does not go with --training (it exports the checkpoint's training history)</source>
        <translation>{option} 不能与 --training 同用（它导出检查点的训练历史）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="96"/>
        <source>{option} goes with --task (a task's training is recorded in snapshots)</source>
        <translation>{option} 需与 --task 同用（任务的训练记录在快照中）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="243"/>
        <source>{option} is for an encoder–decoder folder's --prompt-map; {checkpoint} has one self-attention</source>
        <translation>{option} 用于编码器－解码器文件夹的 --prompt-map；{checkpoint} 只有一种自注意力</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/live.py" line="76"/>
        <source>{option} must be from {low:,} to {high:,}</source>
        <translation>{option} 必须在 {low:,} 到 {high:,} 之间</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="158"/>
        <source>{option} sets the kernel-regression view; {checkpoint} is a {kind} model</source>
        <translation>{option} 用于设置核回归视图；{checkpoint} 是 {kind} 模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="203"/>
        <source>{option} {here} on machine {node}, {there} on machine 0</source>
        <translation>{option} 在机器 {node} 上为 {here}，在 0 号机器上为 {there}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="259"/>
        <source>{option} {number}: this model has {most} (counted from 1)</source>
        <translation>{option} {number}：此模型只有 {most} 个（从 1 开始计数）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="461"/>
        <source>{option} {number}: this model's {kind} has {most} head(s), counted from 1</source>
        <translation>{option} {number}：此模型的{kind}有 {most} 个头，从 1 开始计数</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="459"/>
        <source>{option} {number}: this model's {kind} has {most} layer(s), counted from 1</source>
        <translation>{option} {number}：此模型的{kind}有 {most} 层，从 1 开始计数</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/train.py" line="105"/>
        <source>{option}: {kind} trains on its own synthetic data (it takes --epochs, --seed, --lr and --force)</source>
        <translation>{option}：{kind} 在自己的合成数据上训练（它接受 --epochs、--seed、--lr 和 --force）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/mask.py" line="127"/>
        <source>{part!r}: layer and head are whole numbers counted from 1, e.g. cross:2.1</source>
        <translation>{part!r}：层和头是从 1 开始计数的整数，例如 cross:2.1</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/mask.py" line="122"/>
        <source>{part!r}: name a head as kind:layer.head, e.g. cross:2.1 (kinds: {kinds})</source>
        <translation>{part!r}：请以 种类:层.头 指定一个头，例如 cross:2.1（种类：{kinds}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/mask.py" line="131"/>
        <source>{part!r}: this model has no {kind} (its heads: {heads})</source>
        <translation>{part!r}：此模型没有 {kind}（它的头：{heads}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/mask.py" line="134"/>
        <source>{part!r}: this model's {kind} has {layers} layer(s) of {count} head(s), counted from 1</source>
        <translation>{part!r}：此模型的 {kind} 有 {layers} 层，每层 {count} 个头，从 1 开始计数</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/convert.py" line="163"/>
        <source>{path} appeared while the model was written; nothing was overwritten</source>
        <translation>写入模型期间出现了 {path}；没有覆盖任何内容</translation>
    </message>
    <message>
        <location filename="../../attnviz/unopenable.py" line="53"/>
        <source>{path} cannot be examined: permission denied (a folder on the way is not readable by you)</source>
        <translation>无法检查 {path}：权限不足（路径上的某个文件夹你无权读取）</translation>
    </message>
    <message>
        <location filename="../../attnviz/unopenable.py" line="57"/>
        <source>{path} cannot be opened: {reason}</source>
        <translation>无法打开 {path}：{reason}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/processes.py" line="305"/>
        <location filename="../../attnviz/core/heads/corpus.py" line="59"/>
        <location filename="../../attnviz/core/heads/corpus.py" line="82"/>
        <source>{path} cannot be read: {reason}</source>
        <translation>无法读取 {path}：{reason}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/fashion_mnist.py" line="85"/>
        <source>{path} claims {count:,} items, more than the {limit:,} allowed</source>
        <translation>{path} 声称有 {count:,} 项，超过允许的 {limit:,} 项</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/figure_files.py" line="231"/>
        <source>{path} exists</source>
        <translation>{path} 已存在</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/figure_files.py" line="366"/>
        <source>{path} exists and is not a regular file (it is {kind}): attnviz never replaces it; rename it or choose another folder</source>
        <translation>{path} 已存在且不是普通文件（它是{kind}）：attnviz 绝不会替换它；请重命名它或选择其他文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/render/flipbook.py" line="343"/>
        <source>{path} exists and is not a regular file (it is {kind}): attnviz never replaces it; rename it or choose another name</source>
        <translation>{path} 已存在且不是普通文件（它是{kind}）：attnviz 绝不会替换它；请重命名它或选择其他名称</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/convert.py" line="140"/>
        <source>{path} exists: give a new folder name (nothing is overwritten)</source>
        <translation>{path} 已存在：请给出新的文件夹名（不会覆盖任何内容）</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/fashion_mnist.py" line="114"/>
        <source>{path} has a label {label}, outside 0–9</source>
        <translation>{path} 中有标签 {label}，不在 0–9 之内</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/fashion_mnist.py" line="90"/>
        <source>{path} has bytes after its {count:,} items</source>
        <translation>{path} 在其 {count:,} 项之后还有多余的字节</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/epochs.py" line="62"/>
        <source>{path} holds an unfinished run: add --resume to continue it, or --force to start over</source>
        <translation>{path} 中有一次未完成的运行：添加 --resume 继续它，或添加 --force 重新开始</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/epochs.py" line="23"/>
        <source>{path} holds epoch {epoch}</source>
        <translation>{path} 保存的是第 {epoch} 个迭代周期的模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/fashion_mnist.py" line="81"/>
        <source>{path} holds images of {dims}, not 28 × 28</source>
        <translation>{path} 中的图像为 {dims}，而非 28 × 28</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/fashion_mnist.py" line="110"/>
        <source>{path} holds no images</source>
        <translation>{path} 中没有图像</translation>
    </message>
    <message>
        <location filename="../../attnviz/unopenable.py" line="63"/>
        <source>{path} is a folder, not a file, with no config.json (not a Hugging Face model): {what_opens}; choose one of the files inside it</source>
        <translation>{path} 是文件夹而不是文件，且没有 config.json（不是 Hugging Face 模型）：{what_opens}；请选择其中的某个文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="147"/>
        <source>{path} is a folder: choose a file name for the session</source>
        <translation>{path} 是文件夹：请为会话选择一个文件名</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/corpus.py" line="61"/>
        <source>{path} is a folder: give a text file, one sentence a line</source>
        <translation>{path} 是文件夹：请给出文本文件，每行一个句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/unopenable.py" line="49"/>
        <source>{path} is a symbolic link to {target}, which does not exist</source>
        <translation>{path} 是指向 {target} 的符号链接，而该目标不存在</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/epochs.py" line="24"/>
        <source>{path} is as it was</source>
        <translation>{path} 保持原样</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/fashion_mnist.py" line="65"/>
        <source>{path} is cut short: {got:,} of {want:,} bytes</source>
        <translation>{path} 不完整：只有 {got:,} 字节，应为 {want:,} 字节</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/documents.py" line="107"/>
        <source>{path} is empty: give one document a line</source>
        <translation>{path} 是空的：请每行给出一篇文档</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/corpus.py" line="143"/>
        <source>{path} is empty: give one source sentence a line, or source&lt;TAB&gt;reference lines</source>
        <translation>{path} 是空的：请每行给一个源句子，或每行“源句子&lt;TAB&gt;参考译文”</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/fashion_mnist.py" line="77"/>
        <source>{path} is not a Fashion-MNIST idx file of this kind (magic number {found:#010x}, expected {magic:#010x})</source>
        <translation>{path} 不是此类 Fashion-MNIST idx 文件（魔数为 {found:#010x}，应为 {magic:#010x}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/unopenable.py" line="69"/>
        <source>{path} is not a regular file: {what_opens}</source>
        <translation>{path} 不是普通文件：{what_opens}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/corpus.py" line="101"/>
        <source>{path} is not a text file (line {line} holds a NUL byte)</source>
        <translation>{path} 不是文本文件（第 {line} 行含有 NUL 字节）</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/resume.py" line="114"/>
        <source>{path} is not a training state attnviz can continue ({kind})</source>
        <translation>{path} 不是 attnviz 可以继续的训练状态（{kind}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/corpus.py" line="63"/>
        <source>{path} is {kind}, not a text file: give a text file, one sentence a line</source>
        <translation>{path} 是{kind}，不是文本文件：请给出文本文件，每行一个句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/unopenable.py" line="67"/>
        <source>{path} is {what}, not a file: {why}; {what_opens}</source>
        <translation>{path} 是{what}，不是文件：{why}；{what_opens}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/target.py" line="46"/>
        <source>{path}: a checkpoint already exists there; add --force to replace it</source>
        <translation>{path}：该处已有检查点；添加 --force 以替换它</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="352"/>
        <source>{path}: architectures = {named} is not a model attnviz opens; of model_type {model_type!r} it opens {known}</source>
        <translation>{path}：architectures = {named} 不是 attnviz 能打开的模型；对于 model_type {model_type!r}，它能打开 {known}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/load.py" line="91"/>
        <source>{path}: attnviz does not step {architecture} models yet; it steps {names}</source>
        <translation>{path}：attnviz 尚不能单步解码 {architecture} 模型；它能单步解码 {names}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="329"/>
        <source>{path}: cannot be loaded ({error})</source>
        <translation>{path}：无法加载（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="369"/>
        <location filename="../../attnviz/core/images.py" line="62"/>
        <source>{path}: cannot be opened ({error})</source>
        <translation>{path}：无法打开（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="64"/>
        <location filename="../../attnviz/core/hf/folder.py" line="382"/>
        <location filename="../../attnviz/core/images.py" line="79"/>
        <source>{path}: cannot be read ({error})</source>
        <translation>{path}：无法读取（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/images.py" line="77"/>
        <source>{path}: cannot be read without waiting (not an image file)</source>
        <translation>{path}：无法不等待地读取（不是图像文件）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="120"/>
        <location filename="../../attnviz/training/target.py" line="32"/>
        <source>{path}: cannot be written ({error})</source>
        <translation>{path}：无法写入（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/target.py" line="63"/>
        <source>{path}: cannot write into {folder} ({error})</source>
        <translation>{path}：无法写入 {folder}（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="194"/>
        <source>{path}: class name {name!r}… is not a name (empty, too long, or control characters)</source>
        <translation>{path}：类别名 {name!r}… 不是有效名称（为空、过长或含控制字符）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="435"/>
        <source>{path}: config cannot build a model ({error})</source>
        <translation>{path}：无法用该配置构建模型（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="142"/>
        <source>{path}: config has unknown fields {names}</source>
        <translation>{path}：config 含有未知字段 {names}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="140"/>
        <source>{path}: config is missing {names}</source>
        <translation>{path}：config 缺少 {names}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="135"/>
        <source>{path}: config must be a JSON object</source>
        <translation>{path}：config 必须是 JSON 对象</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="146"/>
        <source>{path}: config.{key} is {value!r}, kind {kind!r} needs {needed!r}</source>
        <translation>{path}：config.{key} 为 {value!r}，而类型 {kind!r} 要求 {needed!r}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="448"/>
        <location filename="../../attnviz/core/hf/folder.py" line="527"/>
        <source>{path}: describes a model of about {billions:,.1f} billion parameters; attnviz opens models of up to {most:g} billion</source>
        <translation>{path}：描述的模型约有 {billions:,.1f} × 10⁹ 个参数；attnviz 最多能打开 {most:g} × 10⁹ 个参数的模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/target.py" line="43"/>
        <source>{path}: exists and is not an attnviz checkpoint; training replaces only checkpoints (choose another name)</source>
        <translation>{path}：已存在且不是 attnviz 检查点；训练只替换检查点（请换一个名称）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="415"/>
        <source>{path}: format_version {version!r} is not supported (expected {expected})</source>
        <translation>{path}：不支持 format_version {version!r}（应为 {expected}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/contents.py" line="147"/>
        <source>{path}: has a Replace step with an empty pattern, which the tokenizers library cannot apply</source>
        <translation>{path}：有一个模式为空的 Replace 步骤，tokenizers 库无法应用它</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/contents.py" line="145"/>
        <source>{path}: has a Replace step without a pattern and a replacement</source>
        <translation>{path}：有一个缺少模式和替换内容的 Replace 步骤</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="191"/>
        <source>{path}: has a safetensors header of {mb:,.0f} MB; a real one takes less than one</source>
        <translation>{path}：safetensors 文件头有 {mb:,.0f} MB；真实的文件头不到 1 MB</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/load.py" line="315"/>
        <location filename="../../attnviz/core/hf/load.py" line="344"/>
        <source>{path}: has a token of id {id!r}, beyond the model's {count:,} token ids</source>
        <translation>{path}：有一个编号为 {id!r} 的词元，超出了模型的 {count:,} 个词元编号</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="287"/>
        <source>{path}: has no model_type naming its architecture</source>
        <translation>{path}：没有指明其架构的 model_type</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="319"/>
        <source>{path}: has no tokenizer (none of {names})</source>
        <translation>{path}：没有分词器（{names} 均不存在）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="150"/>
        <source>{path}: has no weights (none of {names})</source>
        <translation>{path}：没有权重（{names} 均不存在）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="418"/>
        <source>{path}: has no {key}</source>
        <translation>{path}：没有 {key}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="313"/>
        <source>{path}: has no {name}: the image processor that prepares its images</source>
        <translation>{path}：没有 {name}，即准备其图像的图像处理器</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="202"/>
        <source>{path}: holds a tensor of type {dtype}, which attnviz does not read (it reads {names})</source>
        <translation>{path}：含有 {dtype} 类型的张量，attnviz 不读取这种类型（它读取 {names}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="105"/>
        <source>{path}: holds more than {most:,} files; a model folder holds a few dozen</source>
        <translation>{path}：包含超过 {most:,} 个文件；模型文件夹通常只有几十个文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="121"/>
        <source>{path}: holds more than {most} chat templates</source>
        <translation>{path}：包含超过 {most} 个对话模板</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="208"/>
        <source>{path}: holds no tensors: the model's weights are not in it</source>
        <translation>{path}：不含任何张量：模型的权重不在其中</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/guard.py" line="43"/>
        <source>{path}: holds Python objects that torch's safe loader (weights_only) refuses to unpickle; attnviz never runs a checkpoint's code</source>
        <translation>{path}：含有 torch 的安全加载器（weights_only）拒绝反序列化的 Python 对象；attnviz 从不运行检查点中的代码</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/guard.py" line="119"/>
        <source>{path}: holds weights of other shapes than config.json describes ({names})</source>
        <translation>{path}：含有形状与 config.json 描述不符的权重（{names}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/guard.py" line="116"/>
        <source>{path}: holds weights that config.json does not describe ({names}): they are not this model's</source>
        <translation>{path}：含有 config.json 没有描述的权重（{names}）：它们不属于这个模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/load.py" line="159"/>
        <source>{path}: holds {size} of weights, too few for the {numbers} config.json describes; attnviz does not start a model with made-up weights</source>
        <translation>{path}：只有 {size} 的权重，不足以容纳 config.json 描述的 {numbers}；attnviz 不会用随机编造的权重启动模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="461"/>
        <source>{path}: id2label is not a mapping of at most {most:,} class numbers to names</source>
        <translation>{path}：id2label 不是从至多 {most:,} 个类别编号到名称的映射</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/vision.py" line="346"/>
        <source>{path}: id2label names class {index} {name!r}, not a name on one line</source>
        <translation>{path}：id2label 把类别 {index} 命名为 {name!r}，不是单行的名称</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/contents.py" line="86"/>
        <source>{path}: init_inputs passes {value!r} to the tokenizer; attnviz passes a tokenizer nothing but the folder's own files</source>
        <translation>{path}：init_inputs 向分词器传入 {value!r}；attnviz 只向分词器传入文件夹自身的文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="153"/>
        <source>{path}: invalid config ({error})</source>
        <translation>{path}：配置无效（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="149"/>
        <source>{path}: invalid config: {problems}</source>
        <translation>{path}：配置无效：{problems}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="364"/>
        <source>{path}: is a folder, not a checkpoint file</source>
        <translation>{path}：是文件夹，不是检查点文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="280"/>
        <source>{path}: is a folder, not a checkpoint file, and has no config.json: not a Hugging Face model folder either</source>
        <translation>{path}：是文件夹而不是检查点文件，且没有 config.json：也不是 Hugging Face 模型文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/target.py" line="37"/>
        <source>{path}: is a folder; name the checkpoint file to write (e.g. {path}/model.safetensors)</source>
        <translation>{path}：是文件夹；请指定要写入的检查点文件（例如 {path}/model.safetensors）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="80"/>
        <source>{path}: is a link that leads nowhere (a loop of links)</source>
        <translation>{path}：是一个无法到达目标的链接（链接形成了循环）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="82"/>
        <source>{path}: is a link to {target}, outside the model's folder; attnviz reads only the folder's own files</source>
        <translation>{path}：是指向 {target} 的链接，位于模型文件夹之外；attnviz 只读取该文件夹自身的文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/target.py" line="35"/>
        <source>{path}: is a symbolic link; name the checkpoint file itself</source>
        <translation>{path}：是符号链接；请指定检查点文件本身</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="170"/>
        <source>{path}: is missing (model.safetensors.index.json lists it)</source>
        <translation>{path}：缺失（model.safetensors.index.json 列出了它）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="193"/>
        <source>{path}: is not a complete safetensors file (its header does not fit the file)</source>
        <translation>{path}：不是完整的 safetensors 文件（其文件头与文件不符）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/contents.py" line="49"/>
        <location filename="../../attnviz/core/hf/folder.py" line="284"/>
        <location filename="../../attnviz/core/hf/folder.py" line="474"/>
        <source>{path}: is not a JSON object of settings</source>
        <translation>{path}：不是由设置组成的 JSON 对象</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/target.py" line="40"/>
        <source>{path}: is not a regular file (a device or a pipe?); training writes only checkpoints</source>
        <translation>{path}：不是普通文件（设备还是管道？）；训练只写入检查点</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/images.py" line="60"/>
        <source>{path}: is not a regular file (a pipe, socket or device?)</source>
        <translation>{path}：不是普通文件（管道、套接字或设备？）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="206"/>
        <source>{path}: is not a safetensors file (its header is not one)</source>
        <translation>{path}：不是 safetensors 文件（其文件头不是 safetensors 文件头）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="212"/>
        <source>{path}: is not a safetensors file (the bytes of its tensor {name} overlap another's or leave a gap)</source>
        <translation>{path}：不是 safetensors 文件（张量 {name} 的字节与另一个张量重叠或留有空隙）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="219"/>
        <source>{path}: is not a safetensors file ({count:,} bytes follow its last tensor)</source>
        <translation>{path}：不是 safetensors 文件（最后一个张量之后还有 {count:,} 字节）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="157"/>
        <source>{path}: is not a safetensors index (a JSON object with a weight_map)</source>
        <translation>{path}：不是 safetensors 索引（含有 weight_map 的 JSON 对象）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/contents.py" line="59"/>
        <source>{path}: is not a tokenizer (a JSON object)</source>
        <translation>{path}：不是分词器（一个 JSON 对象）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="134"/>
        <source>{path}: is not valid JSON</source>
        <translation>{path}：不是有效的 JSON</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="216"/>
        <source>{path}: is truncated ({size:,} bytes of {total:,}): download it again</source>
        <translation>{path}：文件不完整（{total:,} 字节中只有 {size:,} 字节）：请重新下载</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="89"/>
        <source>{path}: is {kind}, not a file</source>
        <translation>{path}：是{kind}，不是文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/images.py" line="55"/>
        <location filename="../../attnviz/core/images.py" line="67"/>
        <source>{path}: is {kind}, not an image file</source>
        <translation>{path}：是{kind}，不是图像文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="92"/>
        <source>{path}: is {mb:,.0f} MB, larger than any real {name} (at most {most:,.0f} MB)</source>
        <translation>{path}：大小为 {mb:,.0f} MB，超过任何真实的 {name}（最多 {most:,.0f} MB）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/load.py" line="359"/>
        <source>{path}: its config names no end-of-text token or decoder start token</source>
        <translation>{path}：其配置没有指明文本结束词元或解码器起始词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/contents.py" line="158"/>
        <source>{path}: its Replace steps make a text up to {growth:,.0f} times longer; attnviz opens tokenizers whose replacements grow it at most {most} times</source>
        <translation>{path}：其 Replace 步骤会使文本变长至多 {growth:,.0f} 倍；attnviz 只打开替换后文本至多变长 {most} 倍的分词器</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="174"/>
        <source>{path}: its shards' headers take more than {most:,.0f} MB together; a real model's take less than one</source>
        <translation>{path}：各分片的文件头合计超过 {most:,.0f} MB；真实模型的文件头合计不到 1 MB</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="191"/>
        <source>{path}: labels has {count} class names but the config says {expected}</source>
        <translation>{path}：labels 含 {count} 个类别名，但配置要求 {expected} 个</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="189"/>
        <source>{path}: labels must be a JSON list of class names</source>
        <translation>{path}：labels 必须是类别名的 JSON 列表</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="197"/>
        <source>{path}: labels names a class twice</source>
        <translation>{path}：labels 中有重复的类别名</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/guard.py" line="113"/>
        <source>{path}: lacks {count:,} of the model's weights ({names}); attnviz does not start a model with made-up weights</source>
        <translation>{path}：缺少模型的 {count:,} 个权重（{names}）；attnviz 不会用随机编造的权重启动模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/corpus.py" line="127"/>
        <source>{path}: line {line} has a reference but line {first} has none: give every line a reference (source&lt;TAB&gt;reference) or none</source>
        <translation>{path}：第 {line} 行有参考译文，但第 {first} 行没有：请每行都给参考译文（源句子&lt;TAB&gt;参考译文），或都不给</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/corpus.py" line="135"/>
        <source>{path}: line {line} has an empty reference</source>
        <translation>{path}：第 {line} 行的参考译文为空</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/corpus.py" line="134"/>
        <source>{path}: line {line} has an empty source</source>
        <translation>{path}：第 {line} 行的源句子为空</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/corpus.py" line="128"/>
        <source>{path}: line {line} has no reference but line {first} has one: give every line a reference (source&lt;TAB&gt;reference) or none</source>
        <translation>{path}：第 {line} 行没有参考译文，但第 {first} 行有：请每行都给参考译文（源句子&lt;TAB&gt;参考译文），或都不给</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/corpus.py" line="106"/>
        <source>{path}: line {line} is not UTF-8 text</source>
        <translation>{path}：第 {line} 行不是 UTF-8 文本</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/corpus.py" line="96"/>
        <source>{path}: line {line} is over {kib:,} KiB: one document a line (each is cut to the model's positions)</source>
        <translation>{path}：第 {line} 行超过 {kib:,} KiB：每行一篇文档（每篇按模型的位置数截断）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/corpus.py" line="98"/>
        <source>{path}: line {line} is over {kib} KiB: one sentence a line</source>
        <translation>{path}：第 {line} 行超过 {kib} KiB：每行一个句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/eval.py" line="60"/>
        <source>{path}: lines left out: {why}</source>
        <translation>{path}：略去的行：{why}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="161"/>
        <source>{path}: lists {count:,} shards; attnviz opens models of up to {most:,}</source>
        <translation>{path}：列出了 {count:,} 个分片；attnviz 只打开不超过 {most:,} 个分片的模型</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/vision.py" line="304"/>
        <source>{path}: makes pictures of {height} × {width} pixels, smaller than the model's patch of {patch} × {patch}</source>
        <translation>{path}：生成 {height} × {width} 像素的图片，小于模型 {patch} × {patch} 的图块</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/vision.py" line="315"/>
        <source>{path}: makes pictures of {height} × {width} pixels, {count:,} positions: the attention maps of one image would take {gb:.1f} GB, more than attnviz records</source>
        <translation>{path}：生成 {height} × {width} 像素的图片，共 {count:,} 个位置：一张图像的注意力图将占用 {gb:.1f} GB，超过 attnviz 的记录上限</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="132"/>
        <source>{path}: metadata has no 'config'</source>
        <translation>{path}：元数据中没有 'config'</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="186"/>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="208"/>
        <source>{path}: metadata has no '{key}'</source>
        <translation>{path}：元数据中没有 '{key}'</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="269"/>
        <source>{path}: missing tensors {names}</source>
        <translation>{path}：缺少张量 {names}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="292"/>
        <source>{path}: model_type 'gemma3' is Gemma 3's image–text model, which attnviz does not open; it opens Gemma 3's language model saved alone (model_type 'gemma3_text', as Gemma 3 270M and 1B are)</source>
        <translation>{path}：model_type 'gemma3' 是 Gemma 3 的图文模型，attnviz 不打开它；attnviz 打开单独保存的 Gemma 3 语言模型（model_type 'gemma3_text'，Gemma 3 270M 和 1B 就是这样保存的）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="296"/>
        <source>{path}: model_type {model_type!r} is not one attnviz opens; it opens {names}</source>
        <translation>{path}：attnviz 不能打开 model_type 为 {model_type!r} 的模型；它能打开 {names}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/images.py" line="139"/>
        <source>{path}: more than {most:,} pixels, more than attnviz decodes (a decompression bomb?)</source>
        <translation>{path}：超过 {most:,} 像素，超出 attnviz 解码的上限（解压炸弹？）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/files.py" line="166"/>
        <source>{path}: names {shard!r}, not a file of this folder</source>
        <translation>{path}：列出的 {shard!r} 不是此文件夹中的文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/eval.py" line="56"/>
        <source>{path}: no held-out sentence pairs (is it the file the model was trained on?)</source>
        <translation>{path}：没有留出的句对（它是训练该模型所用的文件吗？）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/eval.py" line="57"/>
        <source>{path}: no sentence pairs</source>
        <translation>{path}：没有句对</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="120"/>
        <source>{path}: no sentences to explain</source>
        <translation>{path}：没有可解释的句子</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="362"/>
        <location filename="../../attnviz/core/heads/corpus.py" line="57"/>
        <location filename="../../attnviz/core/images.py" line="53"/>
        <source>{path}: no such file</source>
        <translation>{path}：文件不存在</translation>
    </message>
    <message>
        <location filename="../../attnviz/unopenable.py" line="51"/>
        <source>{path}: no such file or folder; {what_opens}</source>
        <translation>{path}：没有这个文件或文件夹；{what_opens}</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/data.py" line="123"/>
        <source>{path}: no usable sentence pairs (lines skipped: {skipped})</source>
        <translation>{path}：没有可用的句对（跳过的行：{skipped}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/data.py" line="125"/>
        <source>{path}: no usable sentence pairs (the file has no lines)</source>
        <translation>{path}：没有可用的句对（文件中没有任何行）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="274"/>
        <source>{path}: not a folder (a Hugging Face model is a folder with config.json)</source>
        <translation>{path}：不是文件夹（Hugging Face 模型是一个含有 config.json 的文件夹）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="398"/>
        <source>{path}: not a readable safetensors file ({error})</source>
        <translation>{path}：不是可读的 safetensors 文件（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="359"/>
        <source>{path}: not a regular file (a pipe or a device?)</source>
        <translation>{path}：不是普通文件（是管道还是设备？）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/load.py" line="206"/>
        <source>{path}: not a SentencePiece model that can be read; the tokenizer needs it</source>
        <translation>{path}：不是可读取的 SentencePiece 模型；分词器需要它</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="411"/>
        <source>{path}: not an attnviz checkpoint: no attnviz metadata (a safetensors file, but not one attnviz wrote)</source>
        <translation>{path}：不是 attnviz 检查点：没有 attnviz 元数据（是 safetensors 文件，但不是 attnviz 写入的）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/images.py" line="136"/>
        <source>{path}: not an image attnviz reads (PNG, JPEG, WebP, BMP or GIF)</source>
        <translation>{path}：不是 attnviz 能读取的图像（PNG、JPEG、WebP、BMP 或 GIF）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/explain.py" line="365"/>
        <source>{path}: nothing was decoded to explain</source>
        <translation>{path}：没有解码出可解释的内容</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/load.py" line="98"/>
        <source>{path}: opening Hugging Face models needs the transformers package, which the standalone build leaves out: install attnviz from source (README: bash scripts/run.sh)</source>
        <translation>{path}：打开 Hugging Face 模型需要 transformers 包，而独立构建版不含此包：请从源码安装 attnviz（README：bash scripts/run.sh）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/images.py" line="72"/>
        <source>{path}: over {mb} MB, larger than any image attnviz reads</source>
        <translation>{path}：超过 {mb} MB，大于 attnviz 读取的任何图像</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="513"/>
        <source>{path}: pad_token_id = {value!r} is not a whole number from 0 to {most:,}: the model's positions start after it, within its {positions:,}</source>
        <translation>{path}：pad_token_id = {value!r} 不是 0 到 {most:,} 之间的整数：模型的位置从它之后开始，且须在其 {positions:,} 个位置之内</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="366"/>
        <location filename="../../attnviz/core/images.py" line="57"/>
        <source>{path}: permission denied (the file is not readable by you)</source>
        <translation>{path}：权限不足（你无权读取该文件）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/contents.py" line="93"/>
        <source>{path}: sp_model_kwargs passes {keys} to SentencePiece; attnviz passes only {allowed}</source>
        <translation>{path}：sp_model_kwargs 向 SentencePiece 传入 {keys}；attnviz 只传入 {allowed}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="445"/>
        <source>{path}: tensor {name} changed while it was read</source>
        <translation>{path}：张量 {name} 在读取过程中发生了变化</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="282"/>
        <source>{path}: tensor {name} has dtype {dtype}, expected {expected}</source>
        <translation>{path}：张量 {name} 的数据类型为 {dtype}，应为 {expected}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="276"/>
        <source>{path}: tensor {name} has shape {shape}, expected {expected} (the config does not match the weights)</source>
        <translation>{path}：张量 {name} 的形状为 {shape}，应为 {expected}（配置与权重不符）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="447"/>
        <source>{path}: tensor {name} holds NaN or infinite values</source>
        <translation>{path}：张量 {name} 含有 NaN 或无穷值</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="450"/>
        <source>{path}: tensor {name} holds values beyond ±{most:g}, which no attnviz model has</source>
        <translation>{path}：张量 {name} 含有超出 ±{most:g} 的值，attnviz 的模型都不会有这样的值</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/images.py" line="142"/>
        <source>{path}: the image is damaged or cut short ({error})</source>
        <translation>{path}：图像已损坏或不完整（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/vision.py" line="325"/>
        <source>{path}: the model cannot read the pictures it makes ({error})</source>
        <translation>{path}：模型无法读取它生成的图片（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="289"/>
        <source>{path}: the model needs its own Python code (auto_map), which attnviz never runs (no trust_remote_code)</source>
        <translation>{path}：该模型需要运行它自带的 Python 代码（auto_map），而 attnviz 从不运行这类代码（不使用 trust_remote_code）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="441"/>
        <source>{path}: the tensor data does not match its checksum: the file is corrupted (download or copy it again)</source>
        <translation>{path}：张量数据与其校验和不符：文件已损坏（请重新下载或复制）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/contents.py" line="83"/>
        <source>{path}: the tokenizer needs its own Python code (auto_map), which attnviz never runs (no trust_remote_code)</source>
        <translation>{path}：该分词器需要运行自带的 Python 代码（auto_map），attnviz 从不运行这类代码（不使用 trust_remote_code）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/contents.py" line="67"/>
        <source>{path}: the tokenizer's files define {count:,} special and added tokens; attnviz opens tokenizers of up to {most:,} (transformers takes ever longer per token beyond)</source>
        <translation>{path}：分词器文件定义了 {count:,} 个特殊词元和新增词元；attnviz 只打开不超过 {most:,} 个的分词器（超过后 transformers 对每个词元的处理越来越慢）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="430"/>
        <source>{path}: training info must be a JSON object</source>
        <translation>{path}：训练信息必须是 JSON 对象</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/guard.py" line="45"/>
        <source>{path}: transformers cannot open it ({error})</source>
        <translation>{path}：transformers 无法打开它（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/vision.py" line="271"/>
        <source>{path}: transformers {version} has no {name}: install a release that has it to open this folder</source>
        <translation>{path}：transformers {version} 没有 {name}：请安装包含它的版本以打开此文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="271"/>
        <source>{path}: unexpected tensors {names}</source>
        <translation>{path}：多出了张量 {names}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="419"/>
        <source>{path}: unknown model kind {name!r}; known: {known}</source>
        <translation>{path}：未知的模型类型 {name!r}；已知类型：{known}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="406"/>
        <source>{path}: {count:,} tensors; no attnviz model has more than {most:,}</source>
        <translation>{path}：有 {count:,} 个张量；attnviz 的模型最多只有 {most:,} 个</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/target.py" line="56"/>
        <source>{path}: {folder} is not a folder</source>
        <translation>{path}：{folder} 不是文件夹</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="554"/>
        <source>{path}: {key} = {value!r} is below 0; the normalisation would take the square root of a negative number</source>
        <translation>{path}：{key} = {value!r} 小于 0；归一化将对负数开平方</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="581"/>
        <source>{path}: {key} = {value!r} is not a finite number; attnviz refuses it rather than show maps of NaN</source>
        <translation>{path}：{key} = {value!r} 不是有限数；attnviz 拒绝它，而不显示由 NaN 构成的图</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="549"/>
        <source>{path}: {key} = {value!r} is not a number above 0; the rotary positions would make every attention map NaN</source>
        <translation>{path}：{key} = {value!r} 不是大于 0 的数；旋转位置编码会使每张注意力图都成为 NaN</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="420"/>
        <source>{path}: {key} = {value!r} is not a whole number from 1 to {most:,}</source>
        <translation>{path}：{key} = {value!r} 不是 1 到 {most:,} 之间的整数</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="480"/>
        <source>{path}: {key} = {value} is not a number above 0 (the pictures are divided by it)</source>
        <translation>{path}：{key} = {value} 不是大于 0 的数（图片要除以它）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="488"/>
        <source>{path}: {key} = {value} is not a size in pixels from 1 to {most:,}</source>
        <translation>{path}：{key} = {value} 不是 1 到 {most:,} 之间的像素尺寸</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/guard.py" line="132"/>
        <source>{path}: {key} = {value} is not a token id of the model (a whole number from 0 to {most:,})</source>
        <translation>{path}：{key} = {value} 不是该模型的词元编号（应为 0 到 {most:,} 之间的整数）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/folder.py" line="441"/>
        <location filename="../../attnviz/core/hf/folder.py" line="503"/>
        <source>{path}: {key} = {width} is not divisible into {heads} heads (or {heads} heads into {groups} groups)</source>
        <translation>{path}：{key} = {width} 无法均分为 {heads} 个头（或 {heads} 个头无法均分为 {groups} 组）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="231"/>
        <source>{path}: {key} has {count} tokens but the config says {expected}</source>
        <translation>{path}：{key} 有 {count} 个词元，但配置中为 {expected} 个</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="163"/>
        <source>{path}: {key} is nested too deeply to be attnviz metadata</source>
        <translation>{path}：{key} 嵌套过深，不可能是 attnviz 元数据</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="228"/>
        <source>{path}: {key} is not a valid vocabulary ({error})</source>
        <translation>{path}：{key} 不是有效的词表（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="160"/>
        <source>{path}: {key} is not valid JSON ({error})</source>
        <translation>{path}：{key} 不是有效的 JSON（{error}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/contents.py" line="128"/>
        <source>{path}: {key} names {named}, outside the model's folder; attnviz reads only the folder's own files</source>
        <translation>{path}：{key} 指向模型文件夹之外的 {named}；attnviz 只读取文件夹自身的文件</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="285"/>
        <location filename="../../attnviz/core/checkpoints/checkpoint.py" line="372"/>
        <location filename="../../attnviz/core/hf/load.py" line="102"/>
        <source>{path}: {problem}</source>
        <translation>{path}：{problem}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/images.py" line="119"/>
        <source>{path}: {width:,} × {height:,} pixels, a strip rather than a picture: attnviz reads images whose longer side is at most {most} times the shorter</source>
        <translation>{path}：{width:,} × {height:,} 像素，是一条细带而不是图片：attnviz 只读取长边至多为短边 {most} 倍的图像</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/images.py" line="115"/>
        <source>{path}: {width:,} × {height:,} pixels, more than the {most:,} attnviz decodes (a decompression bomb?)</source>
        <translation>{path}：{width:,} × {height:,} 像素，超过 attnviz 解码的上限 {most:,}（解压炸弹？）</translation>
    </message>
    <message>
        <location filename="../../attnviz/training/train.py" line="132"/>
        <location filename="../../attnviz/training/vision.py" line="148"/>
        <source>{problem} (make --arch smaller)</source>
        <translation>{problem}（请把 --arch 设得小一些）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="386"/>
        <source>{problem}: not followed without asking (open the session in the window to confirm it, or move the session beside its checkpoint)</source>
        <translation>{problem}：未经询问不会沿用该路径（请在窗口中打开会话以确认，或把会话移到其检查点旁边）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/distributed.py" line="402"/>
        <source>{processes} processes were started on this machine, which has {cores} CPU core(s): more processes than cores only wait for each other; start at most {cores} (--nproc-per-node, --processes)</source>
        <translation>本机启动了 {processes} 个进程，但只有 {cores} 个 CPU 核心：进程多于核心只会互相等待；最多启动 {cores} 个（--nproc-per-node、--processes）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/chains.py" line="288"/>
        <source>{projection}: this layer adds no positions (no RoPE)</source>
        <translation>{projection}：这一层不加位置信息（无 RoPE）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/heatmap_readout.py" line="42"/>
        <source>{row_axis} {query} → {col_axis} {key}: {value}</source>
        <translation>{row_axis} {query} → {col_axis} {key}：{value}</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/image.py" line="110"/>
        <source>{scale} · largest {largest:.3g} = {times:.1f} × uniform (1/{count:,})</source>
        <translation>{scale} · 最大 {largest:.3g} = 均匀分布（1/{count:,}）的 {times:.1f} 倍</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/hf/chains.py" line="296"/>
        <source>{score}, capped: s_j ← {cap:g}·tanh(s_j / {cap:g})</source>
        <translation>{score}，再截顶：s_j ← {cap:g}·tanh(s_j / {cap:g})</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/training.py" line="41"/>
        <source>{seconds:.0f} s</source>
        <translation>{seconds:.0f} 秒</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/book_dialog.py" line="155"/>
        <source>{section} — {caption}.</source>
        <translation>{section} — {caption}。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/book_dialog.py" line="157"/>
        <source>{section} — {caption}. It can be shown live in the window.</source>
        <translation>{section} — {caption}。可以在窗口中实时显示。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/book_dialog.py" line="160"/>
        <source>{sentence} {note}</source>
        <translation>{sentence}{note}</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="40"/>
        <source>{sentence}: {tokens} tok.</source>
        <translation>{sentence}：{tokens} 个词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="344"/>
        <source>{session}: its prompt of more than {cap:,} tokens is shown whole, its maps computed on demand, and never stepped: leave out {option}</source>
        <translation>{session}：其提示超过 {cap:,} 个词元，整体显示、注意力图按需计算，从不逐步解码：请去掉 {option}</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="353"/>
        <source>{session}: its view shows layer {layer}, head {head}; this model has {layers} layers of {heads} heads</source>
        <translation>{session}：其视图显示第 {layer} 层第 {head} 个头；此模型有 {layers} 层，每层 {heads} 个头</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="371"/>
        <source>{session}: the heads it switches off: {error}</source>
        <translation>{session}：它关闭的头：{error}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/atlas.py" line="149"/>
        <source>{sources} sentences but {references} reference lists</source>
        <translation>{sources} 个句子，但有 {references} 组参考译文</translation>
    </message>
    <message>
        <location filename="../../attnviz/session_file.py" line="66"/>
        <source>{start}…{end} ({count:,} characters)</source>
        <translation>{start}…{end}（{count:,} 个字符）</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/export.py" line="540"/>
        <source>{stem}: training</source>
        <translation>{stem}：训练过程</translation>
    </message>
    <message>
        <location filename="../../attnviz/progress.py" line="27"/>
        <source>{s} s</source>
        <translation>{s} 秒</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/compare.py" line="79"/>
        <source>{title} (last layer, heads averaged; red: {model} attends more)</source>
        <translation>{title}（最后一层，各头平均；红色：{model} 关注更多）</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/panels.py" line="68"/>
        <source>{title} · layer {layer} · {note}</source>
        <translation>{title} · 第 {layer} 层 · {note}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/computation.py" line="119"/>
        <source>{title}: weights recomputed from q, k and the mask; largest difference from the model's own weights {difference:.1e}.</source>
        <translation>{title}：由 q、k 和掩码重新计算的权重；与模型自身权重的最大差异为 {difference:.1e}。</translation>
    </message>
    <message>
        <location filename="../../attnviz/progress.py" line="81"/>
        <source>{what} {percent} % ({counted})</source>
        <translation>{what} {percent} %（{counted}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="95"/>
        <source>{what} {value} is out of range: {where} has {count} (0 to {last})</source>
        <translation>{what} {value} 超出范围：{where}共有 {count} 个（0 到 {last}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/file_opening.py" line="107"/>
        <source>{what}: {error}</source>
        <translation>{what}：{error}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/file_opening.py" line="110"/>
        <source>{what}: {kind}: {error}</source>
        <translation>{what}：{kind}：{error}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="290"/>
        <source>{where} has bad labels</source>
        <translation>{where}的标签有误</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="277"/>
        <source>{where} has no step or time</source>
        <translation>{where}没有步数或时间</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="280"/>
        <source>{where} holds a loss, score or agreement that is not a number</source>
        <translation>{where}的损失、得分或对齐一致率不是数字</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="273"/>
        <source>{where} is not an object</source>
        <translation>{where}不是一个对象</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="283"/>
        <source>{where}'s agreement is not a share from 0 to 1</source>
        <translation>{where}的对齐一致率不是 0 到 1 之间的比例</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="292"/>
        <source>{where}'s map is empty or larger than {cells:,} cells</source>
        <translation>{where}的注意力图为空或超过 {cells:,} 个单元格</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="297"/>
        <source>{where}'s map is not a table of numbers</source>
        <translation>{where}的注意力图不是数值表</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/learning/history.py" line="299"/>
        <source>{where}'s map is not {rows} × {cols} finite numbers</source>
        <translation>{where}的注意力图不是 {rows} × {cols} 个有限数值</translation>
    </message>
    <message>
        <location filename="../../attnviz/progress.py" line="73"/>
        <source>{where}, {elapsed} so far</source>
        <translation>{where}，已用 {elapsed}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/file_opening.py" line="122"/>
        <source>{where}.

Open the session with that checkpoint?</source>
        <translation>{where}。

用该检查点打开会话吗？</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/inputs.py" line="212"/>
        <source>{where}both sides need one {mask} at the same place: the answers are read there</source>
        <translation>{where}两侧都需要在同一位置有一个 {mask}：答案在那里读取</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/shared.py" line="60"/>
        <source>{where}input of {count} tokens truncated to the model's limit of {most}</source>
        <translation>{where}输入有 {count} 个词元，已截断到模型的上限 {most}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/inputs.py" line="92"/>
        <source>{where}the clean side reads as {clean} tokens and the corrupt side as {corrupt}: a pair's two sides must read as the same number of tokens (attnviz does not align them)</source>
        <translation>{where}干净一侧读作 {clean} 个词元，损坏一侧读作 {corrupt} 个：一对的两侧必须读作相同数量的词元（attnviz 不对齐它们）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/inputs.py" line="136"/>
        <source>{where}the model translates both sides alike ({translation!r}) and never writes {answer!r}: there is no step to read</source>
        <translation>{where}模型把两侧译得一样（{translation!r}），且从不写出 {answer!r}：没有可读取的步骤</translation>
    </message>
    <message>
        <location filename="../../attnviz/commands/shared.py" line="58"/>
        <source>{where}unknown words mapped to &lt;unk&gt;: {words}</source>
        <translation>{where}未知的词已映射为 &lt;unk&gt;：{words}</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/inputs.py" line="162"/>
        <source>{where}{word!r} is more than one token of this model's tokenizer</source>
        <translation>{where}{word!r} 在这个模型的分词器中不止一个词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/patching/inputs.py" line="109"/>
        <source>{where}{word!r} is not one token of the model's output vocabulary</source>
        <translation>{where}{word!r} 不是模型输出词表中的一个词元</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/heads/distributed.py" line="272"/>
        <source>{who} did not come to exchange {number} in {seconds:g} s ({env})</source>
        <translation>{who} 在 {seconds:g} 秒内未到达第 {number} 次数据交换（{env}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="287"/>
        <source>|j − {row}| ≤ {window}</source>
        <translation>|j − {row}| ≤ {window}</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="415"/>
        <source>α = softmax(q·k_j / √d), by hand</source>
        <translation>α = softmax(q·k_j / √d)，手工计算</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="347"/>
        <source>α = softmax(s) over every position</source>
        <translation>α = 对所有位置做 softmax(s)</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="241"/>
        <source>α = softmax(s) over visible keys</source>
        <translation>α = softmax(s)，在可见的键上</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="234"/>
        <source>α = softmax(s) over visible keys (causal mask: j ≤ {row})</source>
        <translation>α = softmax(s)，在可见的键上（因果掩蔽，自回归：j ≤ {row}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="236"/>
        <source>α = softmax(s) over visible keys (causal mask: j ≤ {row}; the source view is keys 1–{prompt})</source>
        <translation>α = softmax(s)，在可见的键上（因果掩蔽，自回归：j ≤ {row}；源视图为键 1–{prompt}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/decoding/query_computation.py" line="240"/>
        <source>α = softmax(s) over visible keys (padding mask: j &lt; {length})</source>
        <translation>α = softmax(s)，在可见的键上（填充掩码：j &lt; {length}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gallery.py" line="415"/>
        <source>α, the model's own</source>
        <translation>α，模型自身的输出</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/positional.py" line="85"/>
        <source>θ_i (radians)</source>
        <translation>θ_i（弧度）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/positional.py" line="83"/>
        <source>θ_i: the angle pair i turns per position</source>
        <translation>θ_i：第 i 对维度每个位置转过的角度</translation>
    </message>
    <message>
        <location filename="../../attnviz/modern_gallery.py" line="134"/>
        <source>‖q‖ after RMSNorm</source>
        <translation>RMSNorm 之后的 ‖q‖</translation>
    </message>
    <message>
        <location filename="../../attnviz/modern_gallery.py" line="133"/>
        <source>‖q‖ before the norm</source>
        <translation>归一化之前的 ‖q‖</translation>
    </message>
    <message>
        <location filename="../../attnviz/figures/heads.py" line="167"/>
        <location filename="../../attnviz/gui/panels/heads.py" line="170"/>
        <source>‖α f(x)‖</source>
        <translation>‖α f(x)‖</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/positional.py" line="33"/>
        <source>“{part}” (not a number)</source>
        <translation>“{part}”（不是数字）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/positional.py" line="36"/>
        <source>“{part}” (outside 0…{last})</source>
        <translation>“{part}”（超出 0…{last}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="175"/>
        <source>“{token}” (chosen)</source>
        <translation>“{token}”（选中）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/panels/explain.py" line="225"/>
        <source>“{token}”: log p = {log_prob:.3f}.</source>
        <translation>“{token}”：log p = {log_prob:.3f}。</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/text.py" line="180"/>
        <source>“{word}” (nearest it knows: {near})</source>
        <translation>“{word}”（它认识的最相近的词：{near}）</translation>
    </message>
    <message>
        <location filename="../../attnviz/core/text.py" line="178"/>
        <source>“{word}” (never an output)</source>
        <translation>“{word}”（从不作为输出）</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/shortcuts_dialog.py" line="53"/>
        <source>→ and ← step only where the focus is not in a text field; the lecture view's keys act only in the lecture view. A click on a heatmap row shows how that query's weights are computed.</source>
        <translation>焦点不在文本框中时，→ 和 ← 单步前进或后退；课堂视图的按键只在课堂视图中起作用。点击热图中的一行可查看该查询的权重是如何计算的。</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="126"/>
        <location filename="../../attnviz/gui/lecture.py" line="330"/>
        <source>▶ Play</source>
        <translation>▶ 自动播放</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/decoding_area.py" line="274"/>
        <source>◀ Back</source>
        <translation>◀ 后退</translation>
    </message>
    <message>
        <location filename="../../attnviz/gui/lecture.py" line="326"/>
        <source>❚❚ Pause</source>
        <translation>❚❚ 暂停</translation>
    </message>
</context>
</TS>
