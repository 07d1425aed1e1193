/*
 * AudioToolbox for Linux — <AudioToolbox/AUGraph.h>.
 *
 * A graph of audio units: nodes made from component descriptions, the inputs of one
 * node fed by another's output or by a render callback, and one output node (RemoteIO,
 * VoiceProcessingIO or GenericOutput) whose pull drives the whole graph. Changes made
 * while the graph runs wait in the graph until AUGraphUpdate applies them. Names, values
 * and signatures are the iPhone SDK's (iOS 7); the Mac's sub-graphs and the calls it
 * replaced by AUGraphNodeInfo and the interaction calls are not declared.
 */
#ifndef __AUGraph_h__
#define __AUGraph_h__

#include <CoreAudio/CoreAudioTypes.h>
#include <AudioUnit/AudioUnit.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct OpaqueAUGraph *AUGraph;
/* A node's number in its graph: never reused while the graph lives. */
typedef SInt32 AUNode;

/* ---- result codes ------------------------------------------------------------------- */

enum {
    kAUGraphErr_NodeNotFound             = -10860, /* no node of that number in the graph */
    kAUGraphErr_InvalidConnection        = -10861, /* the connection would make a cycle, or its input is taken */
    kAUGraphErr_OutputNodeErr            = -10862, /* a second output node, or a graph without one */
    kAUGraphErr_CannotDoInCurrentContext = -10863, /* not now (e.g. from a render callback) */
    kAUGraphErr_InvalidAudioUnit         = -10864  /* the graph is not open: the node has no unit yet */
};

/* ---- interactions: what feeds a node's input ------------------------------------------ */

enum {
    kAUNodeInteraction_Connection    = 1, /* another node's output */
    kAUNodeInteraction_InputCallback = 2  /* the program's render callback */
};

struct AudioUnitNodeConnection {
    AUNode sourceNode;
    UInt32 sourceOutputNumber;
    AUNode destNode;
    UInt32 destInputNumber;
};
typedef struct AudioUnitNodeConnection AudioUnitNodeConnection;
typedef struct AudioUnitNodeConnection AUNodeConnection;

struct AUNodeRenderCallback {
    AUNode destNode;
    AudioUnitElement destInputNumber;
    AURenderCallbackStruct cback;
};
typedef struct AUNodeRenderCallback AUNodeRenderCallback;

struct AUNodeInteraction {
    UInt32 nodeInteractionType; /* kAUNodeInteraction_... */
    union {
        AUNodeConnection connection;
        AUNodeRenderCallback inputCallback;
    } nodeInteraction;
};
typedef struct AUNodeInteraction AUNodeInteraction;

/* ---- the graph and its nodes ---------------------------------------------------------- */

extern OSStatus NewAUGraph(AUGraph *outGraph);
/* Stops, uninitializes and closes the graph first: its units are disposed of with it. */
extern OSStatus DisposeAUGraph(AUGraph inGraph);

extern OSStatus AUGraphAddNode(AUGraph inGraph, const AudioComponentDescription *inDescription, AUNode *outNode);
extern OSStatus AUGraphRemoveNode(AUGraph inGraph, AUNode inNode);
extern OSStatus AUGraphGetNodeCount(AUGraph inGraph, UInt32 *outNumberOfNodes);
extern OSStatus AUGraphGetIndNode(AUGraph inGraph, UInt32 inIndex, AUNode *outNode);
/* Either out pointer may be NULL; the unit exists once the graph is open. */
extern OSStatus AUGraphNodeInfo(AUGraph inGraph, AUNode inNode, AudioComponentDescription *outDescription,
                                AudioUnit *outAudioUnit);

/* ---- connections ------------------------------------------------------------------------ */

extern OSStatus AUGraphConnectNodeInput(AUGraph inGraph, AUNode inSourceNode, UInt32 inSourceOutputNumber,
                                        AUNode inDestNode, UInt32 inDestInputNumber);
extern OSStatus AUGraphSetNodeInputCallback(AUGraph inGraph, AUNode inDestNode, UInt32 inDestInputNumber,
                                            const AURenderCallbackStruct *inInputCallback);
extern OSStatus AUGraphDisconnectNodeInput(AUGraph inGraph, AUNode inDestNode, UInt32 inDestInputNumber);
extern OSStatus AUGraphClearConnections(AUGraph inGraph);

extern OSStatus AUGraphGetNumberOfInteractions(AUGraph inGraph, UInt32 *outNumInteractions);
extern OSStatus AUGraphGetInteractionInfo(AUGraph inGraph, UInt32 inInteractionIndex,
                                          AUNodeInteraction *outInteraction);
extern OSStatus AUGraphCountNodeInteractions(AUGraph inGraph, AUNode inNode, UInt32 *outNumInteractions);
/* ioNumInteractions: in, the room in outInteractions; out, how many were written. */
extern OSStatus AUGraphGetNodeInteractions(AUGraph inGraph, AUNode inNode, UInt32 *ioNumInteractions,
                                           AUNodeInteraction *outInteractions);

/* Applies the changes made since the last update. outIsUpdated may be NULL (then the
 * call returns once they are applied); otherwise it says whether they were. */
extern OSStatus AUGraphUpdate(AUGraph inGraph, Boolean *outIsUpdated);

/* ---- life --------------------------------------------------------------------------------- */

extern OSStatus AUGraphOpen(AUGraph inGraph);
extern OSStatus AUGraphClose(AUGraph inGraph);
extern OSStatus AUGraphInitialize(AUGraph inGraph);
extern OSStatus AUGraphUninitialize(AUGraph inGraph);
extern OSStatus AUGraphStart(AUGraph inGraph);
extern OSStatus AUGraphStop(AUGraph inGraph);

extern OSStatus AUGraphIsOpen(AUGraph inGraph, Boolean *outIsOpen);
extern OSStatus AUGraphIsInitialized(AUGraph inGraph, Boolean *outIsInitialized);
extern OSStatus AUGraphIsRunning(AUGraph inGraph, Boolean *outIsRunning);

/* Share of the render period the graph's render took: the average since the last call,
 * and the highest since the last call. */
extern OSStatus AUGraphGetCPULoad(AUGraph inGraph, Float32 *outAverageCPULoad);
extern OSStatus AUGraphGetMaxCPULoad(AUGraph inGraph, Float32 *outMaxLoad);

/* Called before and after each render of the output node (kAudioUnitRenderAction_PreRender,
 * ..._PostRender), on the render thread. */
extern OSStatus AUGraphAddRenderNotify(AUGraph inGraph, AURenderCallback inCallback, void *inRefCon);
extern OSStatus AUGraphRemoveRenderNotify(AUGraph inGraph, AURenderCallback inCallback, void *inRefCon);

#ifdef __cplusplus
}
#endif

#endif /* __AUGraph_h__ */
